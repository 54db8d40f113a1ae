/**
 * The sales area: opportunities, quotes (and the customer's quote page) and invoices.
 * This file is its public face: nothing outside domain/sales/ imports anything but this file.
 *
 * It offers its operations, its tables, `listen` (an opportunity follows its lead), and what the quote
 * page's door, the sales timers' activities and the relay need: the page's path, the two timers'
 * operations, and its outboxes (the timers not yet started).
 */

import { getInvoice } from './operations/invoice-get';
import { issueInvoice } from './operations/invoice-issue';
import { listInvoices } from './operations/invoice-list';
import { payInvoice } from './operations/invoice-pay';
import { closeOpportunityByHand } from './operations/opportunity-close';
import { createOpportunity } from './operations/opportunity-create';
import { getOpportunity } from './operations/opportunity-get';
import { listOpportunities } from './operations/opportunity-list';
import { acceptQuotePage } from './operations/quote-accept';
import { createQuote } from './operations/quote-create';
import { declineQuotePage } from './operations/quote-decline';
import { getQuote } from './operations/quote-get';
import { listQuotes } from './operations/quote-list';
import { reviseQuote } from './operations/quote-revise';
import { sendQuoteOp } from './operations/quote-send';
import { viewQuotePage } from './operations/quote-view-page';
import {
  DocumentCounterEntity,
  InvoiceEntity,
  OpportunityEntity,
  QuoteEntity,
  QuoteSignatureEntity,
} from './entities';

/** The operations this area registers. */
export const operations = {
  createOpportunity,
  closeOpportunityByHand,
  getOpportunity,
  listOpportunities,
  createQuote,
  reviseQuote,
  sendQuoteOp,
  getQuote,
  listQuotes,
  viewQuotePage,
  acceptQuotePage,
  declineQuotePage,
  issueInvoice,
  payInvoice,
  getInvoice,
  listInvoices,
} as const;

/** Its tables. */
export const entities = [
  OpportunityEntity,
  DocumentCounterEntity,
  QuoteEntity,
  QuoteSignatureEntity,
  InvoiceEntity,
];

/** Its outboxes: sent quotes and issued invoices waiting for their timers (the relay reads them). */
export { outboxes } from './outboxes';

/** How it reacts to the areas below it. */
export { listen } from './reactions';

// Operations the quote page's door still imports by name; `operations.<name>` is the way in.

/** Where a quote's public page lives (`/quotes/<token>`). */
export { QUOTE_PAGE_PATH } from './quote-lifecycle';
/** An amount in minor units, written for people in its currency. */
export { money } from './documents';
/** Expires a sent revision at its valid-until's end (run by its timer; no door offers it). */
export { expireQuote } from './operations/quote-expire';
/** Sends an unpaid invoice's first overdue reminder (run by its timer; no door offers it). */
export { remindOverdueInvoice } from './operations/invoice-remind-overdue';
/** A quote revision and an invoice, as their tables hold them (what their timers start from). */
export type { Invoice, Quote } from './entities';
