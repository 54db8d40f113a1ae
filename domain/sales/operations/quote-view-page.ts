import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { QUOTE_PAGE_PATH, markViewed } from '../quote-lifecycle';
import { PAGE, byToken, clientFields, pageOf, tokenField } from '../quote-page';
import { SALES_WRITE } from '../requirements';

export const viewQuotePage = defineOperation({
  name: 'quote.view_page',
  title: "Open a quote's page",
  description:
    'The customer opens the link: the revision as its page shows it, and whether it can still be signed. The first view of a sent revision emits quote.viewed.',
  returns:
    'The page: the seller and the customer, number, issue date, lines, total, valid-until, terms, the document hash and signature, and why it is closed when it is.',
  requirement: SALES_WRITE,
  reach: 'record',
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
  input: yup.object({
    token: tokenField,
    record_view: describe(
      yup.boolean().typeError('record_view must be true or false').default(true),
      'Count this as a view (false when the page is shown again with a refusal: the view was already counted).',
    ),
    ...clientFields,
  }),
  output: PAGE,
  doors: { public: [{ method: 'get', path: `${QUOTE_PAGE_PATH}/:token`, family: 'quote_page' }] },
  summary: () => "Open a quote's page",
  run: async (ctx, i) => {
    const { quote, lead, data } = await byToken(ctx, i.token);
    const viewed = i.record_view ? await markViewed({ ...ctx, data }, quote, data) : quote;
    ctx.audit(quote.workspace_id, {
      quote_id: quote.id,
      revision: quote.revision,
      first_view: !quote.viewed_at,
    });
    return pageOf(viewed, lead, data);
  },
});
