import * as yup from 'yup';
import type { Data } from '../../kernel/data';
import { DomainError } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation, type OperationContext } from '../../kernel/operation';
import { arrayOf, boolean, dateTime, integer, nullable, object, oneOf, string } from '../../kernel/shapes';
import { sellerNamed, workspaceNamed } from '../../identity';
import { type Lead, lockLead } from '../../leads';
import { pageLinks } from '../../conversations';
import { QUOTE_STATUSES, type Quote } from '../entities';
import { TOKEN_PATTERN, dayIn, sha256 } from '../documents';
import {
  CONSENT_TEXT,
  QUOTE_PAGE_PATH,
  acceptQuote,
  closedBecause,
  declineQuote,
  expireIfDue,
  markViewed,
} from '../quote-lifecycle';
import { quoteForPage, quotesIn } from '../repository';
import { SALES_WRITE } from '../requirements';
import { idField } from '../schemas';

/**
 * The customer's side of a quote, behind its page's token (no API key): the public door runs these as
 * the service itself. An unknown token, whatever workspace it might have been for, is "not found".
 */
const tokenField = describe(
  yup.string().typeError('token must be text').required('token is required'),
  "The page's token, from the link in the email.",
);
const clientFields = {
  client_ip: describe(
    yup.string().typeError('client_ip must be text').max(100),
    'The address the request came from.',
  ),
  user_agent: describe(
    yup.string().typeError('user_agent must be text').max(2000),
    "The browser's User-Agent.",
  ),
};

/**
 * The revision a token names, locked, with its lead locked first; a past valid-until is expired on the
 * spot. A token is derived from the revision's id and the server's key (checked in constant time), or
 * is the random one of a quote sent before links were derived, found by its hash.
 */
async function byToken(
  ctx: OperationContext,
  token: string,
): Promise<{ quote: Quote; lead: Lead; data: Data }> {
  const { secretsKey } = ctx.services;
  const id = secretsKey ? pageLinks(secretsKey, QUOTE_PAGE_PATH).read(token) : undefined;
  const found = id
    ? await quoteForPage(ctx.data, { id })
    : TOKEN_PATTERN.test(token)
      ? await quoteForPage(ctx.data, { token_hash: sha256(token) })
      : undefined;
  if (!found) throw new DomainError('not_found', 'This link is not valid.', { field: 'token' });
  const { lead, data } = await lockLead(ctx.data.in(found.workspace_id), found.lead_id);
  const quote = await quotesIn(data).mustFind(found.id, true);
  return { quote: await expireIfDue({ ...ctx, data }, quote, data), lead, data };
}

const PAGE = object(
  {
    seller: object({
      name: string(),
      address: nullable(string()),
      email: nullable(string()),
      phone: nullable(string()),
    }),
    customer: object({ name: nullable(string()), company: nullable(string()) }),
    number: string(),
    revision: integer(),
    status: oneOf(QUOTE_STATUSES),
    issued_on: string({ format: 'date' }),
    currency: string(),
    lines: arrayOf(
      object({
        description: string(),
        quantity: { type: 'number' },
        unit_amount: integer(),
        amount: integer(),
      }),
    ),
    total: integer(),
    recurring_interval: nullable(string()),
    valid_until: string({ format: 'date' }),
    terms_url: nullable(string()),
    terms_text: nullable(string()),
    document_sha256: string(),
    closed: nullable(string()),
    consent_text: string(),
    signature: nullable(object({ name: string(), signed_at: dateTime, client_ip: nullable(string()) })),
  },
  { title: 'QuotePage' },
);

/** Who the quote is for: the lead's name (its email when it has none) and its company when it gave one. */
const customerOf = (lead: Lead) => {
  const company = lead.answers.company;
  return {
    name: [lead.first_name, lead.last_name].filter(Boolean).join(' ') || lead.email,
    company: typeof company === 'string' && company.trim() ? company.trim() : null,
  };
};

const pageOf = async (q: Quote, lead: Lead, data: Data) => {
  const workspace = (await workspaceNamed(data, q.workspace_id))!;
  // As it was sent (what the document hash covers); a quote sent before quotes kept it shows it as now.
  const seller = q.seller ?? sellerNamed(workspace);
  const signature = q.status === 'ACCEPTED' ? await quotesIn(data).signatureOf(q.id) : null;
  return {
    seller: {
      name: seller.name,
      address: seller.address,
      email: seller.email,
      phone: seller.phone,
    },
    customer: customerOf(lead),
    number: q.number!,
    revision: q.revision,
    status: q.status,
    // The day it was sent, where the seller is: a page has a token only once sent.
    issued_on: dayIn(q.sent_at!, workspace.timezone),
    currency: q.currency,
    lines: q.lines,
    total: Number(q.total),
    recurring_interval: q.recurring_interval,
    valid_until: q.valid_until,
    terms_url: seller.terms_url,
    terms_text: seller.terms_text,
    document_sha256: q.document_sha256!,
    closed: closedBecause(q) ?? null,
    consent_text: CONSENT_TEXT,
    signature: signature && {
      name: signature.typed_name,
      signed_at: signature.signed_at.toISOString(),
      client_ip: signature.client_ip,
    },
  };
};

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
