import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { WRITE, defineOperation } from '../../kernel/operation';
import type { Quote } from '../entities';
import { priced } from '../documents';
import { notPast, todayIn } from '../quote-lifecycle';
import { lockedWithLead } from '../repository/lock-order';
import { quotesIn } from '../repository/quotes';
import { SALES_WRITE } from '../requirements';
import {
  currencyField,
  dayField,
  idField,
  intervalField,
  intervalOf,
  linesField,
  quoteFlags,
} from '../schemas';
import { QUOTE, quoteView } from '../views';

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
    quote: idField('quote', 'The quote revision.'),
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
