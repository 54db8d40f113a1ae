import { queueMessage } from '../conversations';
import type { Data } from '../kernel/data';
import { DomainError, invalid } from '../kernel/errors';
import type { OperationContext } from '../kernel/operation';
import { type Lead, workspaceTimezone } from '../leads';
import { sellerNamed, workspaceNamed } from '../identity';
import type { Quote } from './entities';
import { dayIn, documentOf, endOfDay, money, sha256 } from './documents';
import { nextNumber } from './repository/counters';
import { opportunitiesIn } from './repository/opportunities';
import { quotesIn } from './repository/quotes';

type Ctx = Pick<OperationContext, 'data' | 'emit' | 'services'>;

/**
 * Where a quote's public page lives: `<public URL>/quotes/<token>`, the token derived from the
 * revision's id and the server's key when the email leaves (conversations' page links).
 */
export const QUOTE_PAGE_PATH = '/quotes';

/** The words a signer agrees to by ticking the box; a change to them is a new version. */
const CONSENT_VERSION = 'consent-2026-11-v1';
export const CONSENT_TEXT =
  'I agree that typing my name and pressing Accept is my electronic signature, and that I accept this quote and its terms.';

const subjectOf = (q: Quote) => ({ type: 'quote' as const, id: q.id });
const ref = (q: Quote) => ({ quote_id: q.id, number: q.number!, revision: q.revision });

/** The workspace's "today" and time zone. */
export async function todayIn(ctx: Ctx, workspaceId: string) {
  const zone = await workspaceTimezone(ctx.data, workspaceId);
  const now = ctx.services.clock?.() ?? new Date();
  return { zone, now, today: dayIn(now, zone) };
}

/** Refuses a valid-until day already past in the workspace's time zone. */
export function notPast(day: string, today: string, field: string) {
  if (day < today) throw invalid(field, `${field} ${day} has already passed (today is ${today})`);
}

/**
 * Sends a draft revision: numbers the quote if it never had one (gap-free: the counter is locked until
 * commit), fixes the hash of what the customer will see, supersedes the revision sent before it,
 * emails the customer the link to its page, moves the opportunity to PROPOSAL and emits quote.sent.
 * The relay starts its expiry timer after commit. The link is made when the email leaves and exists
 * only there: the stored message says "[link to quote Q-0012, revision 2]" in its place.
 */
export async function sendQuote(ctx: Ctx, q: Quote, lead: Lead, data: Data) {
  const quotes = quotesIn(data);
  const family = await quotes.family(q.family_id, true);
  if (family[0]!.id !== q.id)
    throw new DomainError('conflict', `Revision ${family[0]!.revision} is newer; send that one.`, {
      field: 'quote',
    });
  if (q.status !== 'DRAFT')
    throw new DomainError('conflict', `This revision is ${q.status}; revise the quote to send a new one.`, {
      field: 'quote',
    });
  const { zone, now, today } = await todayIn(ctx, q.workspace_id);
  notPast(q.valid_until, today, 'valid_until');
  const number = family.find((r) => r.number)?.number ?? (await nextNumber(data, 'quote'));
  const seller = sellerNamed((await workspaceNamed(data, q.workspace_id))!);
  const documentSha256 = sha256(documentOf({ ...q, number, seller }));
  const link = {
    path: QUOTE_PAGE_PATH,
    subject: q.id,
    label: `[link to quote ${number}, revision ${q.revision}]`,
  };
  const name = lead.first_name ? ` ${lead.first_name}` : '';
  const message = await queueMessage(data, lead, {
    channel: 'email',
    pageLink: link,
    subject: `Quote ${number}${q.revision > 1 ? ` (revision ${q.revision})` : ''}`,
    body: [
      `Hello${name},`,
      '',
      `Here is quote ${number}${q.revision > 1 ? `, revision ${q.revision}` : ''}: ${money(q.total, q.currency)}${q.recurring_interval ? ` per ${q.recurring_interval}` : ''}, valid until ${q.valid_until}.`,
      '',
      `View it, and accept or decline it, here: ${link.label}`,
      '',
      'The link is personal: please do not forward it.',
    ].join('\n'),
  });
  for (const earlier of family.filter((r) => r.id !== q.id && r.status === 'SENT'))
    await quotes.change(earlier.id, { status: 'SUPERSEDED', decided_at: now });
  const sent = await quotes.change(q.id, {
    number,
    status: 'SENT',
    sent_at: now,
    expires_at: endOfDay(q.valid_until, zone),
    document_sha256: documentSha256,
    seller,
    message_id: message.id,
  });
  const opportunities = opportunitiesIn(data);
  const opportunity = await opportunities.find(q.opportunity_id);
  if (opportunity && (opportunity.stage === 'QUALIFIED' || opportunity.stage === 'BOOKED'))
    await opportunities.change(opportunity.id, { stage: 'PROPOSAL' });
  await ctx.emit(q.workspace_id, 'quote.sent', subjectOf(sent), {
    ...ref(sent),
    opportunity_id: q.opportunity_id,
    lead_id: q.lead_id,
    total: Number(q.total),
    currency: q.currency,
    valid_until: q.valid_until,
  });
  return { quote: sent, messageId: message.id };
}

/**
 * A sent revision past its valid-until (the timer's work, and done on the spot when its page is
 * opened after the instant and before the timer ran): EXPIRED, quote.expired. Anything else is left.
 */
export async function expireIfDue(ctx: Ctx, q: Quote, data: Data, force = false): Promise<Quote> {
  const now = ctx.services.clock?.() ?? new Date();
  if (q.status !== 'SENT' || !q.expires_at || (!force && now < q.expires_at)) return q;
  const expired = await quotesIn(data).change(q.id, { status: 'EXPIRED', decided_at: now });
  await ctx.emit(q.workspace_id, 'quote.expired', subjectOf(q), {
    ...ref(q),
    lead_id: q.lead_id,
    valid_until: q.valid_until,
  });
  return expired;
}

/** Why a revision can no longer be accepted or declined, in words for its page; undefined when it can. */
export function closedBecause(q: Quote): string | undefined {
  switch (q.status) {
    case 'SENT':
      return undefined;
    case 'ACCEPTED':
      return 'This quote has already been accepted.';
    case 'DECLINED':
      return 'This quote has been declined.';
    case 'EXPIRED':
      return `This quote expired: it was valid until ${q.valid_until}.`;
    case 'SUPERSEDED':
      return 'This quote has been replaced by a newer revision; use the link in the latest email.';
    case 'DRAFT':
      return 'This quote has not been sent.';
  }
}

/** The customer opened the page: quote.viewed, the first time for this revision. */
export async function markViewed(ctx: Ctx, q: Quote, data: Data): Promise<Quote> {
  if (q.status !== 'SENT' || q.viewed_at) return q;
  const viewed = await quotesIn(data).change(q.id, { viewed_at: ctx.services.clock?.() ?? new Date() });
  await ctx.emit(q.workspace_id, 'quote.viewed', subjectOf(q), { ...ref(q), lead_id: q.lead_id });
  return viewed;
}

/** Accepted with a simple electronic signature: the evidence stored, signature.completed, quote.accepted. */
export async function acceptQuote(
  ctx: Ctx,
  q: Quote,
  data: Data,
  s: { name: string; shownSha256: string | undefined; clientIp: string | null; userAgent: string | null },
) {
  const closed = closedBecause(q);
  if (closed) throw new DomainError('conflict', closed, { field: 'quote', status: q.status });
  if (s.shownSha256 !== undefined && s.shownSha256 !== q.document_sha256)
    throw new DomainError(
      'conflict',
      'The quote changed since this page was opened; reload it and read it again.',
      {
        field: 'document_sha256',
      },
    );
  const quotes = quotesIn(data);
  const signature = await quotes.addSignature({
    quote_id: q.id,
    typed_name: s.name,
    consent_text: CONSENT_TEXT,
    consent_version: CONSENT_VERSION,
    document_sha256: q.document_sha256!,
    client_ip: s.clientIp,
    user_agent: s.userAgent?.slice(0, 500) ?? null,
  });
  const accepted = await quotes.change(q.id, { status: 'ACCEPTED', decided_at: signature.signed_at });
  await ctx.emit(q.workspace_id, 'signature.completed', subjectOf(q), {
    ...ref(q),
    signature_id: signature.id,
    lead_id: q.lead_id,
    signed_at: signature.signed_at.toISOString(),
    document_sha256: signature.document_sha256,
    consent_version: CONSENT_VERSION,
  });
  await ctx.emit(q.workspace_id, 'quote.accepted', subjectOf(q), {
    ...ref(q),
    lead_id: q.lead_id,
    opportunity_id: q.opportunity_id,
    signature_id: signature.id,
  });
  return { quote: accepted, signature };
}

/** Declined by the customer: quote.declined. The opportunity stays open for a revision. */
export async function declineQuote(ctx: Ctx, q: Quote, data: Data): Promise<Quote> {
  const closed = closedBecause(q);
  if (closed) throw new DomainError('conflict', closed, { field: 'quote', status: q.status });
  const declined = await quotesIn(data).change(q.id, {
    status: 'DECLINED',
    decided_at: ctx.services.clock?.() ?? new Date(),
  });
  await ctx.emit(q.workspace_id, 'quote.declined', subjectOf(q), {
    ...ref(q),
    lead_id: q.lead_id,
    opportunity_id: q.opportunity_id,
  });
  return declined;
}
