import * as yup from 'yup';
import { defineOperation } from '../../kernel/operation';
import { returningOne } from '../../kernel/sql';
import { qualifyLeadIn } from '../qualify';
import { LEADS_WRITE } from '../requirements';
import { LEAD_COLUMNS, leadView, lockLead, type LeadRow } from '../rows';
import { LEAD } from '../outputs';
import { leadIdField } from '../schemas';

const byId = yup.object({ leadId: leadIdField }).noUnknown('${unknown} is not a parameter of this call');

/** Archives a lead: still readable by id, left out of search, and its addresses free for a new lead. */
export const archiveLead = defineOperation({
  name: 'lead.archive',
  title: 'Archive a lead',
  description:
    'Archives a lead: it stays readable by id but leaves search, and its email and phone are free for a new lead. Archiving an archived lead changes nothing.',
  returns: 'The lead, with archived: true.',
  requirement: LEADS_WRITE,
  reach: 'record',
  changes: true,
  destructive: true,
  idempotent: true,
  gated: false,
  input: byId,
  output: LEAD,
  doors: { mcp: true },
  summary: (i) => `Archive lead ${i.leadId}`,
  run: async (ctx, { leadId }) => {
    const lead = await lockLead(ctx.m, leadId, ctx.workspaceId);
    ctx.audit(lead.workspace_id, { lead_id: lead.id });
    if (lead.archived_at) return leadView(lead);
    const updated = await returningOne<LeadRow>(
      ctx.m,
      `UPDATE leads SET archived_at = clock_timestamp(), updated_at = clock_timestamp() WHERE id = $1 RETURNING ${LEAD_COLUMNS}`,
      [lead.id],
    );
    return leadView(updated);
  },
});

/** Re-qualifies a lead on demand (for example after its answers changed). */
export const qualifyLead = defineOperation({
  name: 'lead.qualify',
  title: 'Qualify a lead again',
  description:
    'Scores a lead again with the current rules; emits lead.qualified, lead.scored and, when the grade moves, score.changed.',
  returns: 'The lead with its new score.',
  requirement: LEADS_WRITE,
  reach: 'record',
  changes: true,
  destructive: false,
  idempotent: false,
  gated: false,
  input: byId,
  output: LEAD,
  doors: { admin: { command: 'lead qualify', flags: (f) => ({ leadId: f.lead }) } },
  summary: (i) => `Qualify lead ${i.leadId} again`,
  run: async (ctx, { leadId }) => {
    const lead = await lockLead(ctx.m, leadId, ctx.workspaceId);
    ctx.audit(lead.workspace_id, { lead_id: lead.id });
    return leadView(await qualifyLeadIn(ctx, lead, 'manual'));
  },
});
