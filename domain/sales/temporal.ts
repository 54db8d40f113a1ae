import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { WORKSPACE_ID } from '../kernel/search-attributes';
import type { Invoice, Quote } from './entities';
import { invoiceWorkflowId, quoteWorkflowId } from './views';
import {
  INVOICE_TIMER_WORKFLOW_TYPE,
  QUOTE_TIMER_WORKFLOW_TYPE,
  type InvoiceTimerInput,
  type QuoteTimerInput,
} from './workflow-contract';

const startOnce = async (start: () => Promise<unknown>) => {
  try {
    await start();
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
};

/**
 * Starts a sent revision's expiry timer, `quote:<id>`: it sleeps until the end of the valid-until day
 * and then expires the revision unless it was settled. Memo and summary say which quote, so the Web UI
 * tells an operator.
 */
export const quoteTimerStarter =
  (client: Client, taskQueue: string) =>
  (
    q: Pick<Quote, 'id' | 'workspace_id' | 'lead_id' | 'number' | 'revision' | 'valid_until' | 'expires_at'>,
  ) =>
    startOnce(() => {
      const input: QuoteTimerInput = { quoteId: q.id, expiresAt: q.expires_at!.toISOString() };
      return client.workflow.start(QUOTE_TIMER_WORKFLOW_TYPE, {
        taskQueue,
        workflowId: quoteWorkflowId(q.id),
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        staticSummary: `Quote ${q.number} revision ${q.revision}: expires at the end of ${q.valid_until} unless accepted or declined`,
        memo: {
          quote_id: q.id,
          number: q.number,
          revision: q.revision,
          workspace_id: q.workspace_id,
          lead_id: q.lead_id,
          valid_until: q.valid_until,
          expires_at: input.expiresAt,
        },
        typedSearchAttributes: [{ key: WORKSPACE_ID, value: q.workspace_id }],
      });
    });

/**
 * Starts an issued invoice's due-date timer, `invoice:<id>`: it sleeps until the due date has passed,
 * then sends the first overdue reminder unless the invoice was paid (paying cancels it).
 */
export const invoiceTimerStarter =
  (client: Client, taskQueue: string) =>
  (i: Pick<Invoice, 'id' | 'workspace_id' | 'lead_id' | 'number' | 'due_date' | 'due_at'>) =>
    startOnce(() => {
      const input: InvoiceTimerInput = { invoiceId: i.id, dueAt: i.due_at.toISOString() };
      return client.workflow.start(INVOICE_TIMER_WORKFLOW_TYPE, {
        taskQueue,
        workflowId: invoiceWorkflowId(i.id),
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        staticSummary: `Invoice ${i.number}: due ${i.due_date}; reminds the customer if unpaid after that`,
        memo: {
          invoice_id: i.id,
          number: i.number,
          workspace_id: i.workspace_id,
          lead_id: i.lead_id,
          due_date: i.due_date,
          due_at: input.dueAt,
        },
        typedSearchAttributes: [{ key: WORKSPACE_ID, value: i.workspace_id }],
      });
    });
