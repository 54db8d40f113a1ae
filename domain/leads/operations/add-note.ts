import * as yup from 'yup';
import { actorUserId } from '../../kernel/actor';
import { defineOperation } from '../../kernel/operation';
import { returningOne } from '../../kernel/sql';
import { LEADS_WRITE } from '../requirements';
import { LEAD_COLUMNS, leadView, lockLead, type LeadRow } from '../rows';
import { NOTE_RESULT } from '../outputs';
import { leadIdField, noteField } from '../schemas';

/** Adds a note (1 to 2,000 characters) to a lead. */
export const addLeadNote = defineOperation({
  name: 'lead.add_note',
  title: 'Add a note to a lead',
  description: "Adds a note to a lead's record (1 to 2,000 characters); notes are never sent to the lead.",
  returns: '{ note, lead }.',
  requirement: LEADS_WRITE,
  reach: 'record',
  changes: true,
  destructive: false,
  idempotent: false,
  gated: false,
  input: yup
    .object({ leadId: leadIdField, note: noteField.required('note is required') })
    .strict(true)
    .noUnknown(true, (p: { unknown: string }) => `${p.unknown} is not a parameter of this call`),
  output: NOTE_RESULT,
  doors: { mcp: true },
  summary: (i) => `Add a note to lead ${i.leadId}`,
  run: async (ctx, { leadId, note: body }) => {
    const lead = await lockLead(ctx.m, leadId, ctx.workspaceId);
    const [note] = await ctx.m.query<[{ id: string; created_at: Date }]>(
      `INSERT INTO lead_notes (workspace_id, lead_id, body, author_user_id) VALUES ($1, $2, $3, $4) RETURNING id, created_at`,
      [lead.workspace_id, lead.id, body, actorUserId(ctx.actor)],
    );
    const updated = await returningOne<LeadRow>(
      ctx.m,
      `UPDATE leads SET updated_at = clock_timestamp() WHERE id = $1 RETURNING ${LEAD_COLUMNS}`,
      [lead.id],
    );
    ctx.audit(lead.workspace_id, { lead_id: lead.id, note_id: note.id });
    return {
      note: { id: note.id, body, created_at: note.created_at.toISOString() },
      lead: leadView(updated),
    };
  },
});
