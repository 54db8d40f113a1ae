import * as yup from 'yup';
import { actorUserId } from '../../kernel/actor';
import { WRITE, defineOperation } from '../../kernel/operation';
import { NOTE_RESULT, leadView } from '../views';
import { leadsIn, lockLead } from '../repository/leads';
import { LEADS_WRITE } from '../requirements';
import { leadIdField, noteField } from '../schemas';

/** Adds a note (1 to 2,000 characters) to a lead. */
export const addLeadNote = defineOperation({
  name: 'lead.add_note',
  title: 'Add a note to a lead',
  description: "Adds a note to a lead's record (1 to 2,000 characters); notes are never sent to the lead.",
  returns: '{ note, lead }.',
  requirement: LEADS_WRITE,
  reach: 'record',
  ...WRITE,
  input: yup
    .object({ leadId: leadIdField, note: noteField.required('note is required') })
    .strict(true)
    .noUnknown(true, (p: { unknown: string }) => `${p.unknown} is not a parameter of this call`),
  output: NOTE_RESULT,
  doors: { mcp: true },
  summary: (i) => `Add a note to lead ${i.leadId}`,
  run: async (ctx, { leadId, note: body }) => {
    const { lead, data } = await lockLead(ctx.data, leadId);
    const leads = leadsIn(data);
    const note = await leads.addNote({ lead_id: lead.id, body, author_user_id: actorUserId(ctx.actor) });
    const updated = await leads.markChanged(lead.id);
    ctx.audit(lead.workspace_id, { lead_id: lead.id, note_id: note.id });
    return {
      note: { id: note.id, body, created_at: note.created_at.toISOString() },
      lead: leadView(updated),
    };
  },
});
