import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { defineOperation } from '../../kernel/operation';
import { returningOne } from '../../kernel/sql';
import { normaliseContact, workspaceTimezone } from '../contact-input';
import { LEADS_WRITE } from '../requirements';
import { CONTACT_FIELDS, LEAD_COLUMNS, leadView, lockLead, type Contact, type LeadRow } from '../rows';
import { LEAD } from '../outputs';
import { contactFields, leadIdField } from '../schemas';

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

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
  changes: true,
  destructive: false,
  idempotent: true,
  gated: false,
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
    const { m } = ctx;
    const lead = await lockLead(m, input.leadId, ctx.workspaceId);
    const details: Contact = {};
    for (const f of CONTACT_FIELDS) if (input[f] !== undefined) details[f] = input[f];
    const contact = normaliseContact(details, await workspaceTimezone(m, lead.workspace_id));
    const fields = Object.keys(contact) as (keyof Contact)[];
    ctx.audit(lead.workspace_id, { lead_id: lead.id, fields });
    if (fields.length === 0) return leadView(lead);
    try {
      await m.query('SAVEPOINT update_details');
      const updated = await returningOne<LeadRow>(
        m,
        `UPDATE leads SET ${fields.map((f, i) => `${f} = $${i + 2}`).join(', ')}, updated_at = clock_timestamp()
         WHERE id = $1 RETURNING ${LEAD_COLUMNS}`,
        [lead.id, ...fields.map((f) => contact[f])],
      );
      return leadView(updated);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      await m.query('ROLLBACK TO SAVEPOINT update_details');
      throw new DomainError('conflict', 'Another lead in this workspace already has this email or phone.');
    }
  },
});
