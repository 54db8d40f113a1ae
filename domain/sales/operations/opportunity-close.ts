import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { canMove, lockLead, moveStatus } from '../../leads';
import { closeOpportunity } from '../opportunity-lifecycle';
import { opportunitiesIn } from '../repository/opportunities';
import { SALES_WRITE } from '../requirements';
import { idField } from '../schemas';
import { OPPORTUNITY, opportunityView } from '../views';

export const closeOpportunityByHand = defineOperation({
  name: 'opportunity.close',
  title: 'Close an opportunity as won or lost',
  description:
    'Closes an open opportunity (opportunity.won or opportunity.lost, with the reason) and moves its lead to WON or LOST where the status rules allow. A closed one is refused.',
  returns: 'The opportunity, closed.',
  requirement: SALES_WRITE,
  reach: 'record',
  ...WRITE,
  input: yup.object({
    opportunity: idField('opportunity', 'The opportunity.'),
    outcome: describe(
      yup
        .string()
        .typeError('outcome must be won or lost')
        .lowercase()
        .required('outcome is required (won or lost)')
        .oneOf(['won', 'lost'], 'outcome must be won or lost'),
      'won or lost.',
    ),
    reason: describe(
      yup
        .string()
        .typeError('reason must be text')
        .trim()
        .required('reason is required')
        .min(1, 'reason is required')
        .max(500, 'reason is at most 500 characters'),
      'Why (it goes in the event).',
    ),
  }),
  output: OPPORTUNITY,
  doors: {
    admin: {
      command: 'opportunity close',
      flags: (f) => ({ opportunity: f.opportunity, outcome: f.outcome, reason: f.reason }),
    },
  },
  summary: (i) => `Close opportunity ${i.opportunity} as ${i.outcome}`,
  run: async (ctx, i) => {
    const found = await opportunitiesIn(ctx.data).find(i.opportunity);
    if (!found)
      throw new DomainError('not_found', 'No such opportunity in this workspace.', { field: 'opportunity' });
    const { lead, data } = await lockLead(ctx.data, found.lead_id);
    const o = (await opportunitiesIn(data).find(found.id, true))!;
    if (o.stage === 'WON' || o.stage === 'LOST')
      throw new DomainError('conflict', `The opportunity is already closed as ${o.stage}.`, {
        field: 'opportunity',
      });
    const outcome = i.outcome === 'won' ? 'WON' : 'LOST';
    const c = { ...ctx, data };
    if (lead.status !== outcome && canMove(lead.status, outcome))
      await moveStatus(c, lead, outcome, { follow_up: 'STOPPED' }, i.reason);
    else await closeOpportunity(c, lead, outcome, i.reason);
    ctx.audit(lead.workspace_id, { opportunity_id: o.id, lead_id: lead.id, outcome });
    return opportunityView((await opportunitiesIn(data).find(o.id))!);
  },
});
