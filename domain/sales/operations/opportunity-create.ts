import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { lockLead } from '../../leads';
import { openOpportunity } from '../opportunity-lifecycle';
import { opportunitiesIn } from '../repository/opportunities';
import { SALES_WRITE } from '../requirements';
import { idField } from '../schemas';
import { OPPORTUNITY, opportunityView } from '../views';

export const createOpportunity = defineOperation({
  name: 'opportunity.create',
  title: 'Open an opportunity by hand',
  description:
    'Makes a lead a sales opportunity (opportunity.created, origin MANUAL). A lead has at most one open opportunity; one that has one is refused.',
  returns: 'The opportunity.',
  requirement: SALES_WRITE,
  reach: 'workspace',
  ...WRITE,
  input: yup.object({
    lead: idField('lead', 'The lead.'),
    stage: describe(
      yup
        .string()
        .typeError('stage must be QUALIFIED or BOOKED')
        .oneOf(['QUALIFIED', 'BOOKED'], 'stage must be QUALIFIED or BOOKED')
        .default('QUALIFIED'),
      'Where it starts: QUALIFIED (default) or BOOKED.',
    ),
  }),
  output: OPPORTUNITY,
  doors: { admin: { command: 'opportunity create', flags: (f) => ({ lead: f.lead, stage: f.stage }) } },
  summary: (i) => `Open an opportunity for lead ${i.lead}`,
  run: async (ctx, i) => {
    const { lead, data } = await lockLead(ctx.data, i.lead);
    const open = await opportunitiesIn(data).openFor(lead.id);
    if (open)
      throw new DomainError('conflict', `The lead already has an open opportunity (${open.id}).`, {
        field: 'lead',
        opportunity_id: open.id,
      });
    const o = await openOpportunity({ ...ctx, data }, lead, 'MANUAL', i.stage);
    ctx.audit(lead.workspace_id, { opportunity_id: o.id, lead_id: lead.id });
    return opportunityView(o);
  },
});
