import * as yup from 'yup';
import { WRITE, defineOperation } from '../../kernel/operation';
import { object, uuid } from '../../kernel/shapes';
import { sendQuote } from '../quote-lifecycle';
import { lockedWithLead } from '../repository/lock-order';
import { quotesIn } from '../repository/quotes';
import { SALES_WRITE } from '../requirements';
import { idField } from '../schemas';
import { QUOTE, quoteView } from '../views';

export const sendQuoteOp = defineOperation({
  name: 'quote.send',
  title: 'Send a quote',
  description:
    'Sends a draft revision to the lead by email with a link to its public page, where the customer views it, signs to accept, or declines. The quote is numbered when first sent (gap-free per workspace); the revision sent before it is superseded and can no longer be signed. It expires at the end of its valid-until day. Refused when the lead has no email address or cannot be emailed.',
  returns:
    'The sent quote and the id of the email queued to the lead. The link to its page is made when that email leaves and is nowhere else: not in this answer, the stored message, events or logs.',
  requirement: SALES_WRITE,
  reach: 'record',
  ...WRITE,
  openWorld: true,
  input: yup.object({ quote: idField('quote', 'The quote revision.') }),
  output: object({ quote: QUOTE, message_id: uuid }),
  doors: { admin: { command: 'quote send', flags: (f) => ({ quote: f.quote }) } },
  summary: (i) => `Send quote ${i.quote}`,
  run: async (ctx, i) => {
    const { row: quote, lead, data } = await lockedWithLead(ctx.data, quotesIn, i.quote);
    const { quote: sent, messageId } = await sendQuote({ ...ctx, data }, quote, lead, data);
    ctx.audit(quote.workspace_id, { quote_id: sent.id, number: sent.number, revision: sent.revision });
    return { quote: quoteView(sent), message_id: messageId };
  },
});
