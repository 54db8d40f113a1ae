import * as yup from 'yup';
import type { Data } from '../kernel/data';
import { DomainError } from '../kernel/errors';
import { describe } from '../kernel/json-schema';
import type { OperationContext } from '../kernel/operation';
import { arrayOf, dateTime, integer, nullable, object, oneOf, string } from '../kernel/shapes';
import { sellerNamed, workspaceNamed } from '../identity';
import { type Lead, lockLead } from '../leads';
import { pageLinks } from '../conversations';
import { QUOTE_STATUSES, type Quote } from './entities';
import { TOKEN_PATTERN, dayIn, sha256 } from './documents';
import { CONSENT_TEXT, QUOTE_PAGE_PATH, closedBecause, expireIfDue } from './quote-lifecycle';
import { quoteForPage, quotesIn } from './repository/quotes';

/*
 * The customer's side of a quote, behind its page's token (no API key): the public door runs the page
 * operations (quote.view_page, quote.accept, quote.decline) as the service itself. An unknown token,
 * whatever workspace it might have been for, is "not found". Here is what they share: their fields, how
 * a token finds its revision, and the page they answer.
 */

/** The token the page's link carries. */
export const tokenField = describe(
  yup.string().typeError('token must be text').required('token is required'),
  "The page's token, from the link in the email.",
);
/** Where the request came from, as the public door passes it. */
export const clientFields = {
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
export async function byToken(
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

/** The page as every page operation answers it. */
export const PAGE = object(
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

/** The revision as its page shows it, the seller as it was when sent. */
export const pageOf = async (q: Quote, lead: Lead, data: Data) => {
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
