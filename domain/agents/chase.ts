import type { Actor } from '../kernel/actor';
import type { Data } from '../kernel/data';
import type { OperationContext } from '../kernel/operation';
import { type Lead, moveStatus, setFollowUp } from '../leads';

/**
 * A chase message left for a (locked) lead: follow-up is ACTIVE, and a NEW lead is now CONTACTED
 * (`lead.status_changed`, naming who sent it: the agent, or the person who sent its draft).
 */
export async function markChased(
  data: Data,
  emit: OperationContext['emit'],
  actor: Actor,
  lead: Lead,
): Promise<void> {
  if (lead.status === 'NEW')
    await moveStatus({ data, emit, actor }, lead, 'CONTACTED', { follow_up: 'ACTIVE' });
  else if (lead.follow_up !== 'ACTIVE') await setFollowUp(data, lead.id, 'ACTIVE');
}
