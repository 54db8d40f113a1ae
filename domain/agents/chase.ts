import { actorRef, type Actor } from '../kernel/actor';
import type { Data } from '../kernel/data';
import type { OperationContext } from '../kernel/operation';
import type { Lead } from '../leads/entities';
import { leadsIn } from '../leads/repository/leads';

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
  const leads = leadsIn(data);
  if (lead.status !== 'NEW') {
    if (lead.follow_up !== 'ACTIVE') await leads.mark(lead.id, { follow_up: 'ACTIVE' });
    return;
  }
  await leads.change(lead.id, { status: 'CONTACTED', follow_up: 'ACTIVE' });
  await emit(
    lead.workspace_id,
    'lead.status_changed',
    { type: 'lead', id: lead.id },
    { lead_id: lead.id, status: 'CONTACTED', previous_status: 'NEW', changed_by: actorRef(actor) },
  );
}
