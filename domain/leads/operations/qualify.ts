import { WRITE, defineOperation } from '../../kernel/operation';
import { LEAD, leadView } from '../views';
import { qualifyLeadIn } from '../rescore';
import { lockLead } from '../repository/leads';
import { LEADS_WRITE } from '../requirements';
import { byLeadId } from '../schemas';

/** Re-qualifies a lead on demand (for example after its answers changed). */
export const qualifyLead = defineOperation({
  name: 'lead.qualify',
  title: 'Qualify a lead again',
  description:
    'Scores a lead again with the current rules; emits lead.qualified, lead.scored and, when the grade moves, score.changed.',
  returns: 'The lead with its new score.',
  requirement: LEADS_WRITE,
  reach: 'record',
  ...WRITE,
  input: byLeadId,
  output: LEAD,
  doors: { admin: { command: 'lead qualify', flags: (f) => ({ leadId: f.lead }) } },
  summary: (i) => `Qualify lead ${i.leadId} again`,
  run: async (ctx, { leadId }) => {
    const { lead } = await lockLead(ctx.data, leadId);
    ctx.audit(lead.workspace_id, { lead_id: lead.id });
    return leadView(await qualifyLeadIn(ctx, lead, 'manual'));
  },
});
