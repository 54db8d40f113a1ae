import type { Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Ports, StartJob } from '../../domain/kernel/operation';
import { WORKSPACE_ID } from '../../domain/kernel/search-attributes';
import type { Invoice, Quote } from '../../domain/sales';
import { invoiceDueWorkflow, quoteExpiryWorkflow } from '../../workflows/sales';
import { workflowCanceller } from '../temporal-client';
import { startOnce } from './start-once';
import { invoiceWorkflowId, quoteWorkflowId } from './workflow-ids';

/** What a sent revision's expiry timer is started from. */
export type QuoteToTime = Pick<
  Quote,
  'id' | 'workspace_id' | 'lead_id' | 'number' | 'revision' | 'valid_until' | 'expires_at'
>;
/** What an issued invoice's due-date timer is started from. */
export type InvoiceToTime = Pick<
  Invoice,
  'id' | 'workspace_id' | 'lead_id' | 'number' | 'due_date' | 'due_at'
>;

/**
 * Starts a sent revision's expiry timer, `quote:<id>`: it sleeps until the end of the valid-until day
 * and then expires the revision unless it was settled. Memo and summary say which quote, so the Web UI
 * tells an operator.
 */
export const quoteTimerStarter =
  (client: Client, taskQueue: string): StartJob<QuoteToTime> =>
  async (q) => {
    const expiresAt = q.expires_at!.toISOString();
    await startOnce(client, quoteExpiryWorkflow, {
      taskQueue,
      workflowId: quoteWorkflowId(q.id),
      args: [{ quoteId: q.id, expiresAt }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: `Quote ${q.number} revision ${q.revision}: expires at the end of ${q.valid_until} unless accepted or declined`,
      memo: {
        quote_id: q.id,
        number: q.number,
        revision: q.revision,
        workspace_id: q.workspace_id,
        lead_id: q.lead_id,
        valid_until: q.valid_until,
        expires_at: expiresAt,
      },
      typedSearchAttributes: [{ key: WORKSPACE_ID, value: q.workspace_id }],
    });
  };

/**
 * Starts an issued invoice's due-date timer, `invoice:<id>`: it sleeps until the due date has passed,
 * then sends the first overdue reminder unless the invoice was paid (paying cancels it).
 */
export const invoiceTimerStarter =
  (client: Client, taskQueue: string): StartJob<InvoiceToTime> =>
  async (i) => {
    const dueAt = i.due_at.toISOString();
    await startOnce(client, invoiceDueWorkflow, {
      taskQueue,
      workflowId: invoiceWorkflowId(i.id),
      args: [{ invoiceId: i.id, dueAt }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: `Invoice ${i.number}: due ${i.due_date}; reminds the customer if unpaid after that`,
      memo: {
        invoice_id: i.id,
        number: i.number,
        workspace_id: i.workspace_id,
        lead_id: i.lead_id,
        due_date: i.due_date,
        due_at: dueAt,
      },
      typedSearchAttributes: [{ key: WORKSPACE_ID, value: i.workspace_id }],
    });
  };

/**
 * Cancels the timers whose reason is gone (a paid invoice's); one that already ended or never started
 * needs nothing. `temporal` gives the client when first needed.
 */
export const timerCanceller = (temporal: () => Promise<Client>): Ports['cancelTimers'] => ({
  invoiceDue: async (invoiceId) => workflowCanceller(await temporal())([invoiceWorkflowId(invoiceId)]),
});
