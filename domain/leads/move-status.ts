import { actorRef } from '../kernel/actor';
import type { Changes } from '../kernel/data';
import type { OperationContext } from '../kernel/operation';
import type { Lead } from './entities';
import { leadClosed, opportunityWanted } from './hooks';
import { leadsIn } from './repository/leads';
import type { LeadStatus } from './status-rules';

/**
 * Moves a (locked) lead to another status, with any other change that goes with the move, and emits
 * `lead.status_changed` naming who moved it; the lead's opportunity follows (opened at BOOKED, closed
 * at WON or LOST, with `reason`). The caller has checked the move is allowed.
 */
export async function moveStatus(
  ctx: Pick<OperationContext, 'data' | 'emit' | 'actor'>,
  lead: Lead,
  status: LeadStatus,
  also: Changes<Lead> = {},
  reason?: string,
): Promise<Lead> {
  const updated = await leadsIn(ctx.data.in(lead.workspace_id)).change(lead.id, { status, ...also });
  await ctx.emit(
    lead.workspace_id,
    'lead.status_changed',
    { type: 'lead', id: lead.id },
    { lead_id: lead.id, status, previous_status: lead.status, changed_by: actorRef(ctx.actor) },
  );
  // An opportunity follows its lead: opened when the lead is booked, closed when it is won or lost.
  if (status === 'BOOKED') await opportunityWanted.raise(ctx, lead, 'BOOKING');
  if (status === 'WON' || status === 'LOST')
    await leadClosed.raise(ctx, lead, status, reason ?? `The lead was marked ${status}.`);
  return updated;
}
