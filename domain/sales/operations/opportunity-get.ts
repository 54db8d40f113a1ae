import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { opportunitiesIn } from '../repository/opportunities';
import { SALES_READ } from '../requirements';
import { idField } from '../schemas';
import { OPPORTUNITY, opportunityView } from '../views';

export const getOpportunity = defineOperation({
  name: 'opportunity.get',
  title: 'Read an opportunity',
  description: 'One opportunity: its lead, stage, motion, origin, and how it closed.',
  returns: 'The opportunity.',
  requirement: SALES_READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({ opportunity: idField('opportunity', 'The opportunity.') }),
  output: OPPORTUNITY,
  doors: { admin: { command: 'opportunity get', flags: (f) => ({ opportunity: f.opportunity ?? f.id }) } },
  summary: (i) => `Read opportunity ${i.opportunity}`,
  run: async (ctx, i) => {
    const o = await opportunitiesIn(ctx.data).find(i.opportunity);
    if (!o)
      throw new DomainError('not_found', 'No such opportunity in this workspace.', { field: 'opportunity' });
    return opportunityView(o);
  },
});
