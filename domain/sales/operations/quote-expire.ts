import * as yup from 'yup';
import { WRITE, defineOperation } from '../../kernel/operation';
import { boolean, object, oneOf } from '../../kernel/shapes';
import { lockLead } from '../../leads';
import { QUOTE_STATUSES } from '../entities';
import { expireIfDue } from '../quote-lifecycle';
import { quotesIn } from '../repository/quotes';
import { SALES_WRITE } from '../requirements';
import { idField } from '../schemas';

/** Run by a sent revision's timer at its valid-until's end: EXPIRED unless it was settled before. */
export const expireQuote = defineOperation({
  name: 'quote.expire',
  title: 'Expire a quote',
  description: 'A sent revision past its valid-until date can no longer be signed: quote.expired.',
  returns: '{ status }: the revision as the timer left it.',
  requirement: SALES_WRITE,
  reach: 'record',
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
  input: yup.object({ quote: idField('quote', 'The quote revision.') }),
  output: object({ status: oneOf(QUOTE_STATUSES), expired: boolean }),
  doors: {},
  summary: (i) => `Expire quote ${i.quote}`,
  run: async (ctx, i) => {
    const found = await quotesIn(ctx.data).mustFind(i.quote);
    const { data } = await lockLead(ctx.data.in(found.workspace_id), found.lead_id);
    const quote = await quotesIn(data).mustFind(found.id, true);
    const after = await expireIfDue({ ...ctx, data }, quote, data, true);
    ctx.audit(quote.workspace_id, { quote_id: quote.id, from: quote.status, to: after.status });
    return { status: after.status, expired: after.status === 'EXPIRED' && quote.status === 'SENT' };
  },
});
