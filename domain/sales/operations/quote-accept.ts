import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { QUOTE_PAGE_PATH, acceptQuote } from '../quote-lifecycle';
import { PAGE, byToken, clientFields, pageOf, tokenField } from '../quote-page';
import { SALES_WRITE } from '../requirements';

export const acceptQuotePage = defineOperation({
  name: 'quote.accept',
  title: 'Accept a quote with a signature',
  description:
    'The customer accepts a sent revision on its page with a simple electronic signature: a typed name and a ticked consent box. The signature keeps the name, the consent text and version, the time, the client address, the user agent and the SHA-256 of the revision shown. Emits signature.completed and quote.accepted.',
  returns: 'The page, now accepted.',
  requirement: SALES_WRITE,
  reach: 'record',
  operatorOnly: true,
  ...WRITE,
  input: yup.object({
    token: tokenField,
    name: describe(
      yup
        .string()
        .typeError('name must be text')
        .trim()
        .required('Type your full name to sign.')
        .min(1, 'Type your full name to sign.')
        .max(200, 'Your name can be at most 200 characters.'),
      'The name the signer typed.',
    ),
    consent: describe(
      yup
        .boolean()
        .typeError('Tick the box to agree to sign electronically.')
        .required('Tick the box to agree to sign electronically.')
        .oneOf([true], 'Tick the box to agree to sign electronically.'),
      'The consent box was ticked.',
    ),
    document_sha256: describe(
      yup
        .string()
        .typeError('document_sha256 must be text')
        .matches(/^[0-9a-f]{64}$/, 'document_sha256 must be a SHA-256 in hex'),
      'The SHA-256 of the revision the page showed (a hidden field): a changed revision is refused.',
    ),
    ...clientFields,
  }),
  output: PAGE,
  doors: {
    public: [{ method: 'post', path: `${QUOTE_PAGE_PATH}/:token/accept`, family: 'quote_page' }],
  },
  summary: () => 'Accept a quote',
  run: async (ctx, i) => {
    const { quote, lead, data } = await byToken(ctx, i.token);
    const { quote: accepted, signature } = await acceptQuote({ ...ctx, data }, quote, data, {
      name: i.name,
      shownSha256: i.document_sha256,
      clientIp: i.client_ip ?? null,
      userAgent: i.user_agent ?? null,
    });
    ctx.audit(quote.workspace_id, {
      quote_id: quote.id,
      revision: quote.revision,
      signature_id: signature.id,
    });
    return pageOf(accepted, lead, data);
  },
});
