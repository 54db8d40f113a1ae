import { randomUUID } from 'node:crypto';
import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, WRITE, defineOperation } from '../../kernel/operation';
import { object, page, uuid } from '../../kernel/shapes';
import { lockLead } from '../../leads';
import type { Interval, Quote } from '../entities';
import { priced } from '../documents';
import { openOpportunity } from '../opportunities';
import { sendQuote, notPast, todayIn } from '../quote-lifecycle';
import { quotesIn, lockedWithLead } from '../repository';
import { SALES_READ, SALES_WRITE } from '../requirements';
import { currencyField, dayField, idField, intervalField, jsonFlag, linesField } from '../schemas';
import { QUOTE, quoteView } from '../views';

const quoteField = idField('quote', 'The quote revision.');
const intervalOf = (v: string | undefined): Interval | null | undefined =>
  v === undefined ? undefined : v === 'none' ? null : (v as Interval);

const quoteFlags = (f: Record<string, string>) => ({
  lines: jsonFlag(f.lines),
  currency: f.currency,
  valid_until: f['valid-until'],
  interval: f.interval,
});

export const createQuote = defineOperation({
  name: 'quote.create',
  title: 'Create a quote',
  description:
    "Drafts a quote for a lead: lines, currency, valid-until date and, for a recurring price, its interval. It belongs to the lead's open opportunity (one is opened by hand when there is none). It gets its number when first sent.",
  returns: 'The draft quote (revision 1).',
  requirement: SALES_WRITE,
  reach: 'workspace',
  ...WRITE,
  input: yup.object({
    lead: idField('lead', 'The lead the quote is for.'),
    currency: currencyField.required('currency is required'),
    lines: linesField.required('lines is required'),
    valid_until: dayField(
      'valid_until',
      'The last day it can be accepted (YYYY-MM-DD, workspace time zone).',
    ).required('valid_until is required'),
    interval: intervalField,
  }),
  output: QUOTE,
  doors: { admin: { command: 'quote create', flags: (f) => ({ lead: f.lead, ...quoteFlags(f) }) } },
  summary: (i) => `Draft a quote for lead ${i.lead}`,
  run: async (ctx, i) => {
    const { lead, data } = await lockLead(ctx.data, i.lead);
    const { today } = await todayIn({ ...ctx, data }, lead.workspace_id);
    notPast(i.valid_until, today, 'valid_until');
    const opportunity = await openOpportunity({ ...ctx, data }, lead, 'MANUAL', 'QUALIFIED');
    const { lines, total } = priced(i.lines);
    const id = randomUUID();
    const q = await quotesIn(data).insert({
      id,
      family_id: id,
      revision: 1,
      opportunity_id: opportunity.id,
      lead_id: lead.id,
      currency: i.currency,
      lines,
      total: String(total),
      recurring_interval: intervalOf(i.interval) ?? null,
      valid_until: i.valid_until,
    });
    ctx.audit(lead.workspace_id, { quote_id: q.id, lead_id: lead.id, opportunity_id: opportunity.id });
    return quoteView(q);
  },
});

export const reviseQuote = defineOperation({
  name: 'quote.revise',
  title: 'Revise a quote',
  description:
    'Changes a quote. A draft is changed in place; a sent, declined or expired one gets a new draft revision (the same number, revision + 1) that supersedes it once sent. An accepted quote, and a revision that is not the latest, are refused. Fields left out are kept.',
  returns: 'The draft revision.',
  requirement: SALES_WRITE,
  reach: 'record',
  ...WRITE,
  input: yup.object({
    quote: quoteField,
    currency: currencyField,
    lines: linesField,
    valid_until: dayField('valid_until', 'The last day it can be accepted (YYYY-MM-DD).'),
    interval: intervalField,
  }),
  output: QUOTE,
  doors: { admin: { command: 'quote revise', flags: (f) => ({ quote: f.quote, ...quoteFlags(f) }) } },
  summary: (i) => `Revise quote ${i.quote}`,
  run: async (ctx, i) => {
    const { row: quote, data } = await lockedWithLead(ctx.data, quotesIn, i.quote);
    const quotes = quotesIn(data);
    const [latest] = await quotes.family(quote.family_id, true);
    if (latest!.id !== quote.id)
      throw new DomainError('conflict', `Revision ${latest!.revision} is newer; revise that one.`, {
        field: 'quote',
      });
    if (quote.status === 'ACCEPTED')
      throw new DomainError('conflict', 'This quote was accepted; it cannot be revised.', { field: 'quote' });
    const { today } = await todayIn({ ...ctx, data }, quote.workspace_id);
    if (i.valid_until !== undefined) notPast(i.valid_until, today, 'valid_until');
    const repriced = i.lines ? priced(i.lines) : undefined;
    const changes: Partial<Quote> = {
      ...(i.currency !== undefined && { currency: i.currency }),
      ...(repriced && { lines: repriced.lines, total: String(repriced.total) }),
      ...(i.valid_until !== undefined && { valid_until: i.valid_until }),
      ...(i.interval !== undefined && { recurring_interval: intervalOf(i.interval) ?? null }),
    };
    const revised =
      quote.status === 'DRAFT'
        ? await quotes.change(quote.id, changes)
        : await quotes.insert({
            family_id: quote.family_id,
            revision: quote.revision + 1,
            number: quote.number,
            opportunity_id: quote.opportunity_id,
            lead_id: quote.lead_id,
            currency: quote.currency,
            lines: quote.lines,
            total: quote.total,
            recurring_interval: quote.recurring_interval,
            valid_until: quote.valid_until,
            ...changes,
          });
    ctx.audit(quote.workspace_id, {
      quote_id: revised.id,
      family_id: quote.family_id,
      revision: revised.revision,
    });
    return quoteView(revised);
  },
});

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
  input: yup.object({ quote: quoteField }),
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

export const getQuote = defineOperation({
  name: 'quote.get',
  title: 'Read a quote',
  description: 'One quote revision: lines, total, status, and the signature that accepted it.',
  returns: 'The quote revision.',
  requirement: SALES_READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({ quote: quoteField }),
  output: QUOTE,
  doors: { admin: { command: 'quote get', flags: (f) => ({ quote: f.quote ?? f.id }) } },
  summary: (i) => `Read quote ${i.quote}`,
  run: async (ctx, i) => {
    const quotes = quotesIn(ctx.data);
    const q = await quotes.mustFind(i.quote);
    return quoteView(q, await quotesIn(ctx.data.in(q.workspace_id)).signatureOf(q.id));
  },
});

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
    limit: describe(
      yup
        .number()
        .typeError('limit must be a number')
        .integer()
        .min(1)
        .max(100, 'limit is at most 100')
        .default(25),
      'At most this many (default 25, at most 100).',
    ),
  }),
  output: page(QUOTE),
  doors: { admin: { command: 'quote list', flags: (f) => ({ lead: f.lead, limit: f.limit }) } },
  summary: () => 'List quotes',
  run: async (ctx, i) => {
    const rows = await quotesIn(ctx.data).list(i.lead ? { lead_id: i.lead } : {}, i.limit);
    return { data: rows.map((q) => quoteView(q)), count: rows.length };
  },
});
