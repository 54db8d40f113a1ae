import { actorRef } from '../kernel/actor';
import type { Changes } from '../kernel/data';
import type { OperationContext } from '../kernel/operation';
import type { Lead } from './entities';
import { leadsIn } from './repository/leads';
import type { LeadStatus } from './status-rules';

/**
 * Moves a (locked) lead to another status, with any other change that goes with the move, and emits
 * `lead.status_changed` naming who moved it. The caller has checked the move is allowed.
 */
export async function moveStatus(
  ctx: Pick<OperationContext, 'data' | 'emit' | 'actor'>,
  lead: Lead,
  status: LeadStatus,
  also: Changes<Lead> = {},
): Promise<Lead> {
  const updated = await leadsIn(ctx.data.in(lead.workspace_id)).change(lead.id, { status, ...also });
  await ctx.emit(
    lead.workspace_id,
    'lead.status_changed',
    { type: 'lead', id: lead.id },
    { lead_id: lead.id, status, previous_status: lead.status, changed_by: actorRef(ctx.actor) },
  );
  return updated;
}
