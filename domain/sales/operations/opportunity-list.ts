import * as yup from 'yup';
import { OPPORTUNITY_STAGES } from '../../kernel/event-catalogue';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { page } from '../../kernel/shapes';
import { opportunitiesIn } from '../repository/opportunities';
import { SALES_READ } from '../requirements';
import { OPPORTUNITY, opportunityView } from '../views';
import { listLimit } from '../schemas';

const STAGE_CHOICE = `stage must be ${OPPORTUNITY_STAGES.slice(0, -1).join(', ')} or ${OPPORTUNITY_STAGES.at(-1)}`;

export const listOpportunities = defineOperation({
  name: 'opportunity.list',
  title: 'List opportunities',
  description: 'Opportunities, newest first, optionally of one lead or in one stage.',
  returns: '{ data: [opportunity], count }.',
  requirement: SALES_READ,
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({
    lead: describe(
      yup.string().typeError('lead must be a UUID').uuid('lead must be a UUID'),
      'Only this lead’s.',
    ),
    stage: describe(
      yup
        .string()
        .typeError(STAGE_CHOICE)
        .uppercase()
        .oneOf([...OPPORTUNITY_STAGES], STAGE_CHOICE),
      'Only this stage.',
    ),
    limit: listLimit,
  }),
  output: page(OPPORTUNITY),
  doors: {
    admin: {
      command: 'opportunity list',
      flags: (f) => ({ lead: f.lead, stage: f.stage, limit: f.limit }),
    },
  },
  summary: () => 'List opportunities',
  run: async (ctx, i) => {
    const rows = await opportunitiesIn(ctx.data).list(
      {
        ...(i.lead && { lead_id: i.lead }),
        ...(i.stage && { stage: i.stage }),
      },
      i.limit,
    );
    return { data: rows.map(opportunityView), count: rows.length };
  },
});
