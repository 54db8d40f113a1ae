import { declareOutbox } from '../kernel/outbox';
import { salesUpkeep } from './repository/upkeep';

/**
 * The area's outboxes: sent quote revisions, each waiting for its expiry timer, and issued invoices,
 * each waiting for its due-date timer. Nothing notifies them (the relay reads them on its poll); a
 * row is marked once its timer has started.
 */
export const outboxes = {
  quoteExpiry: declareOutbox({
    name: 'quote expiry',
    unstarted: (data, limit, startedMeanwhile, slots) =>
      salesUpkeep(data).unstartedQuotes(limit, startedMeanwhile, slots),
    key: (q) => q.id,
    started: async (data, q) => {
      await salesUpkeep(data).quoteTimerStarted(q.id);
    },
  }),
  invoiceDue: declareOutbox({
    name: 'invoice due date',
    unstarted: (data, limit, startedMeanwhile, slots) =>
      salesUpkeep(data).unstartedInvoices(limit, startedMeanwhile, slots),
    key: (i) => i.id,
    started: async (data, i) => {
      await salesUpkeep(data).invoiceTimerStarted(i.id);
    },
  }),
};
