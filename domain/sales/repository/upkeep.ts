import { inSlots, slotsParam, type RelaySlots } from '../../kernel/outbox';
import type { Data } from '../../kernel/data';
import type { Invoice, Quote } from '../entities';

/** Sent quotes and issued invoices whose timer workflow the relay has yet to start. */
export const salesUpkeep = (data: Data) => ({
  // SQL: each scan follows its partial index of unstarted rows, leaving out a list.
  unstartedQuotes: (limit: number, startedMeanwhile: string[], slots: RelaySlots) =>
    data.sql<Quote[]>(
      `SELECT id, workspace_id, lead_id, number, revision, valid_until::text AS valid_until, expires_at
         FROM quotes WHERE status = 'SENT' AND timer_started_at IS NULL AND NOT (id = ANY($2::uuid[]))
          AND ${inSlots('workspace_id', '$3')}
        ORDER BY sent_at LIMIT $1`,
      [limit, startedMeanwhile, slotsParam(slots)],
    ),
  unstartedInvoices: (limit: number, startedMeanwhile: string[], slots: RelaySlots) =>
    data.sql<Invoice[]>(
      `SELECT id, workspace_id, lead_id, number, due_date::text AS due_date, due_at
         FROM invoices WHERE status = 'ISSUED' AND timer_started_at IS NULL AND NOT (id = ANY($2::uuid[]))
          AND ${inSlots('workspace_id', '$3')}
        ORDER BY issued_at LIMIT $1`,
      [limit, startedMeanwhile, slotsParam(slots)],
    ),
  quoteTimerStarted: (id: string) =>
    data.sql(`UPDATE quotes SET timer_started_at = clock_timestamp() WHERE id = $1`, [id]),
  invoiceTimerStarted: (id: string) =>
    data.sql(`UPDATE invoices SET timer_started_at = clock_timestamp() WHERE id = $1`, [id]),
});
