import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { page } from '../../kernel/shapes';
import { quotesIn } from '../repository/quotes';
import { SALES_READ } from '../requirements';
import { QUOTE, quoteView } from '../views';
import { listLimit } from '../schemas';

export const listQuotes = defineOperation({
  name: 'quote.list',
  title: 'List quotes',
  description: 'Quote revisions, newest first, optionally of one lead.',
  returns: '{ data: [quote], count }.',
  requirement: SALES_READ,
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({
    lead: describe(
      yup.string().typeError('lead must be a UUID').uuid('lead must be a UUID'),
      'Only this lead’s.',
    ),
    limit: listLimit,
  }),
  output: page(QUOTE),
  doors: { admin: { command: 'quote list', flags: (f) => ({ lead: f.lead, limit: f.limit }) } },
  summary: () => 'List quotes',
  run: async (ctx, i) => {
    const rows = await quotesIn(ctx.data).list(i.lead ? { lead_id: i.lead } : {}, i.limit);
    return { data: rows.map((q) => quoteView(q)), count: rows.length };
  },
});
