import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { WRITE, defineOperation } from '../../kernel/operation';
import { normaliseContact, workspaceTimezone } from '../contact-input';
import { LEADS_WRITE } from '../requirements';
import { LEAD, CONTACT_FIELDS, leadView, type Contact } from '../views';
import { leadsIn, lockLead } from '../repository/leads';
import { contactFields, leadIdField } from '../schemas';

/**
 * Changes contact details; `null` clears a detail. An email or phone that another live lead has is a
 * conflict: leads are deduplicated on them.
 */
export const updateLead = defineOperation({
  name: 'lead.update',
  title: "Change a lead's contact details",
  description:
    "Changes a lead's name, email, phone or postcode; send only the fields to change, null clears one. An email or phone another lead already has is refused.",
  returns: 'The lead as now stored.',
  requirement: LEADS_WRITE,
  reach: 'record',
  ...WRITE,
  idempotent: true,
  input: yup
    .object({ leadId: leadIdField, ...contactFields })
    .strict(true)
    .noUnknown(true, (p: { unknown: string }) => `${p.unknown} is not a lead field`)
    .test('not-empty', 'name at least one field to change', (v) =>
      CONTACT_FIELDS.some((f) => v[f] !== undefined),
    ),
  output: LEAD,
  doors: { mcp: true },
  summary: (i) => `Change ${CONTACT_FIELDS.filter((f) => i[f] !== undefined).join(', ')} of lead ${i.leadId}`,
  run: async (ctx, input) => {
    const { lead, data } = await lockLead(ctx.data, input.leadId);
    const details: Contact = {};
    for (const f of CONTACT_FIELDS) if (input[f] !== undefined) details[f] = input[f];
    const contact = normaliseContact(details, await workspaceTimezone(data, lead.workspace_id));
    const fields = Object.keys(contact) as (keyof Contact)[];
    ctx.audit(lead.workspace_id, { lead_id: lead.id, fields });
    if (fields.length === 0) return leadView(lead);
    const updated = await leadsIn(data).changeContact(lead.id, contact);
    if (!updated) {
      throw new DomainError('conflict', 'Another lead in this workspace already has this email or phone.');
    }
    return leadView(updated);
  },
});
