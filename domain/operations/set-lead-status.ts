import type { DataSource, EntityManager } from 'typeorm';
import { returningOne } from '../sql';
import { actorRef, actorWorkspace, authorize, type Actor } from '../actor';
import { operationAudit, writeAudit } from '../audit';
import { DomainError } from '../errors';
import { emitEvent } from '../events/emit';
import { LEAD_COLUMNS, leadView, lockLead, type LeadRow } from '../leads/lead-row';
import { LEADS_WRITE } from '../leads/requirements';
import { canMove, CLOSED, type LeadStatus } from '../leads/status-rules';

export type Warning = { code: 'status_unchanged' | 'follow_up_stopped'; message: string };

/**
 * Moves a lead along the status table of decisions.md. The same status changes nothing and warns;
 * a move to WON or LOST stops follow-up and says so.
 */
export async function setLeadStatusIn(m: EntityManager, actor: Actor, leadId: string, status: LeadStatus) {
  authorize(actor, LEADS_WRITE);
  const lead = await lockLead(m, leadId, actorWorkspace(actor));
  const warnings: Warning[] = [];
  if (lead.status === status) {
    warnings.push({ code: 'status_unchanged', message: `The lead is already ${status}; nothing changed.` });
    return { lead: leadView(lead), warnings };
  }
  if (!canMove(lead.status, status)) {
    throw new DomainError('conflict', `A lead cannot move from ${lead.status} to ${status}.`, {
      from: lead.status,
      to: status,
    });
  }
  const closing = CLOSED.includes(status);
  const updated = await returningOne<LeadRow>(
    m,
    `UPDATE leads SET status = $2, follow_up = CASE WHEN $3::boolean THEN 'STOPPED' ELSE follow_up END,
       updated_at = clock_timestamp() WHERE id = $1 RETURNING ${LEAD_COLUMNS}`,
    [lead.id, status, closing],
  );
  if (closing) {
    warnings.push({
      code: 'follow_up_stopped',
      message: `Follow-up has stopped because the lead is now ${status}.`,
    });
  }
  await emitEvent(
    m,
    lead.workspace_id,
    'lead.status_changed',
    { type: 'lead', id: lead.id },
    {
      lead_id: lead.id,
      status,
      previous_status: lead.status,
      changed_by: actorRef(actor),
    },
  );
  await writeAudit(
    m,
    operationAudit(actor.ctx, 'lead.set_status', lead.workspace_id, {
      lead_id: lead.id,
      from: lead.status,
      to: status,
    }),
  );
  return { lead: leadView(updated), warnings };
}

export const setLeadStatus = (db: DataSource, actor: Actor, leadId: string, status: LeadStatus) =>
  db.transaction((m) => setLeadStatusIn(m, actor, leadId, status));
