import type { DataSource } from 'typeorm';
import { returningOne } from '../sql';
import { actorWorkspace, authorize, type Actor } from '../actor';
import { operationAudit, writeAudit } from '../audit';
import { LEAD_COLUMNS, leadView, lockLead, type LeadRow } from '../leads/lead-row';
import { LEADS_WRITE } from '../leads/requirements';

/** Archives a lead: still readable by id, left out of search, and its addresses free for a new lead. */
export async function archiveLead(db: DataSource, actor: Actor, leadId: string) {
  authorize(actor, LEADS_WRITE);
  return db.transaction(async (m) => {
    const lead = await lockLead(m, leadId, actorWorkspace(actor));
    if (lead.archived_at) return leadView(lead);
    const updated = await returningOne<LeadRow>(
      m,
      `UPDATE leads SET archived_at = clock_timestamp(), updated_at = clock_timestamp() WHERE id = $1 RETURNING ${LEAD_COLUMNS}`,
      [lead.id],
    );
    await writeAudit(m, operationAudit(actor.ctx, 'lead.archive', lead.workspace_id, { lead_id: lead.id }));
    return leadView(updated);
  });
}
