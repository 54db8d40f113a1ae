import * as yup from 'yup';
import { WRITE, defineOperation } from '../../kernel/operation';
import { QUOTE_PAGE_PATH, declineQuote } from '../quote-lifecycle';
import { PAGE, byToken, clientFields, pageOf, tokenField } from '../quote-page';
import { SALES_WRITE } from '../requirements';

export const declineQuotePage = defineOperation({
  name: 'quote.decline',
  title: 'Decline a quote',
  description: 'The customer declines a sent revision on its page: quote.declined.',
  returns: 'The page, now declined.',
  requirement: SALES_WRITE,
  reach: 'record',
  operatorOnly: true,
  ...WRITE,
  input: yup.object({ token: tokenField, ...clientFields }),
  output: PAGE,
  doors: {
    public: [{ method: 'post', path: `${QUOTE_PAGE_PATH}/:token/decline`, family: 'quote_page' }],
  },
  summary: () => 'Decline a quote',
  run: async (ctx, i) => {
    const { quote, lead, data } = await byToken(ctx, i.token);
    const declined = await declineQuote({ ...ctx, data }, quote, data);
    ctx.audit(quote.workspace_id, { quote_id: quote.id, revision: quote.revision });
    return pageOf(declined, lead, data);
  },
});
