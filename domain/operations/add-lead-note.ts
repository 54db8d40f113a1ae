import type { DataSource, EntityManager } from 'typeorm';
import { returningOne } from '../sql';
import { actorWorkspace, authorize, type Actor } from '../actor';
import { operationAudit, writeAudit } from '../audit';
import { invalid } from '../errors';
import { LEAD_COLUMNS, leadView, lockLead, type LeadRow } from '../leads/lead-row';
import { LEADS_WRITE } from '../leads/requirements';
import { MAX_NOTE_LENGTH } from '../leads/schemas';

/** Adds a note (1 to 2,000 characters) to a lead. */
export async function addLeadNoteIn(m: EntityManager, actor: Actor, leadId: string, body: string) {
  authorize(actor, LEADS_WRITE);
  if (body.length < 1 || [...body].length > MAX_NOTE_LENGTH) {
    throw invalid('note', `note must be 1 to ${MAX_NOTE_LENGTH} characters`);
  }
  const lead = await lockLead(m, leadId, actorWorkspace(actor));
  const [note] = await m.query<[{ id: string; created_at: Date }]>(
    `INSERT INTO lead_notes (workspace_id, lead_id, body, author_user_id) VALUES ($1, $2, $3, $4) RETURNING id, created_at`,
    [lead.workspace_id, lead.id, body, actor.type === 'key' ? actor.principal.userId : null],
  );
  const updated = await returningOne<LeadRow>(
    m,
    `UPDATE leads SET updated_at = clock_timestamp() WHERE id = $1 RETURNING ${LEAD_COLUMNS}`,
    [lead.id],
  );
  await writeAudit(
    m,
    operationAudit(actor.ctx, 'lead.add_note', lead.workspace_id, { lead_id: lead.id, note_id: note.id }),
  );
  return { note: { id: note.id, body, created_at: note.created_at.toISOString() }, lead: leadView(updated) };
}

export const addLeadNote = (db: DataSource, actor: Actor, leadId: string, body: string) =>
  db.transaction((m) => addLeadNoteIn(m, actor, leadId, body));
