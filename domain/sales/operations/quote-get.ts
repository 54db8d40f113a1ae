import * as yup from 'yup';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { quotesIn } from '../repository/quotes';
import { SALES_READ } from '../requirements';
import { idField } from '../schemas';
import { QUOTE, quoteView } from '../views';

export const getQuote = defineOperation({
  name: 'quote.get',
  title: 'Read a quote',
  description: 'One quote revision: lines, total, status, and the signature that accepted it.',
  returns: 'The quote revision.',
  requirement: SALES_READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({ quote: idField('quote', 'The quote revision.') }),
  output: QUOTE,
  doors: { admin: { command: 'quote get', flags: (f) => ({ quote: f.quote ?? f.id }) } },
  summary: (i) => `Read quote ${i.quote}`,
  run: async (ctx, i) => {
    const quotes = quotesIn(ctx.data);
    const q = await quotes.mustFind(i.quote);
    return quoteView(q, await quotesIn(ctx.data.in(q.workspace_id)).signatureOf(q.id));
  },
});
