import { WRITE, defineOperation } from '../../kernel/operation';
import { LEAD, leadView } from '../views';
import { leadsIn, lockLead } from '../repository/leads';
import { LEADS_WRITE } from '../requirements';
import { byLeadId } from '../schemas';

/** Archives a lead: still readable by id, left out of search, and its addresses free for a new lead. */
export const archiveLead = defineOperation({
  name: 'lead.archive',
  title: 'Archive a lead',
  description:
    'Archives a lead: it stays readable by id but leaves search, and its email and phone are free for a new lead. Archiving an archived lead changes nothing.',
  returns: 'The lead, with archived: true.',
  requirement: LEADS_WRITE,
  reach: 'record',
  ...WRITE,
  destructive: true,
  idempotent: true,
  input: byLeadId,
  output: LEAD,
  doors: { mcp: true },
  summary: (i) => `Archive lead ${i.leadId}`,
  run: async (ctx, { leadId }) => {
    const { lead, data } = await lockLead(ctx.data, leadId);
    ctx.audit(lead.workspace_id, { lead_id: lead.id });
    if (lead.archived_at) return leadView(lead);
    return leadView(await leadsIn(data).archive(lead.id));
  },
});
