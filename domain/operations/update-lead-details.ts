import type { DataSource, EntityManager } from 'typeorm';
import { returningOne } from '../sql';
import { actorWorkspace, authorize, type Actor } from '../actor';
import { operationAudit, writeAudit } from '../audit';
import { DomainError } from '../errors';
import { normaliseContact, workspaceTimezone } from '../leads/contact-input';
import { LEAD_COLUMNS, leadView, lockLead, type Contact, type LeadRow } from '../leads/lead-row';
import { LEADS_WRITE } from '../leads/requirements';

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

/**
 * Changes contact details (already validated by the door's schema); `null` clears a detail.
 * An email or phone that another live lead has is a conflict: leads are deduplicated on them.
 */
export async function updateLeadDetailsIn(m: EntityManager, actor: Actor, leadId: string, details: Contact) {
  authorize(actor, LEADS_WRITE);
  const lead = await lockLead(m, leadId, actorWorkspace(actor));
  const contact = normaliseContact(details, await workspaceTimezone(m, lead.workspace_id));
  const fields = Object.keys(contact) as (keyof Contact)[];
  let updated: LeadRow = lead;
  if (fields.length > 0) {
    try {
      await m.query('SAVEPOINT update_details');
      updated = await returningOne<LeadRow>(
        m,
        `UPDATE leads SET ${fields.map((f, i) => `${f} = $${i + 2}`).join(', ')}, updated_at = clock_timestamp()
         WHERE id = $1 RETURNING ${LEAD_COLUMNS}`,
        [lead.id, ...fields.map((f) => contact[f])],
      );
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      await m.query('ROLLBACK TO SAVEPOINT update_details');
      throw new DomainError('conflict', 'Another lead in this workspace already has this email or phone.');
    }
  }
  await writeAudit(
    m,
    operationAudit(actor.ctx, 'lead.update', lead.workspace_id, { lead_id: lead.id, fields }),
  );
  return leadView(updated);
}

export const updateLeadDetails = (db: DataSource, actor: Actor, leadId: string, details: Contact) =>
  db.transaction((m) => updateLeadDetailsIn(m, actor, leadId, details));
