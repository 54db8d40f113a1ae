import { proxyActivities, setWorkflowOptions, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { InvoiceTimerInput, QuoteTimerInput } from '../domain/sales/workflow-contract';

const { expireQuote, remindOverdueInvoice } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

/**
 * A sent quote revision's expiry, `quote:<id>`: sleeps until the end of its valid-until day, then
 * expires it (quote.expired) unless it was accepted, declined or superseded meanwhile.
 */
export async function quoteExpiryWorkflow(input: QuoteTimerInput): Promise<string> {
  await sleep(Math.max(0, Date.parse(input.expiresAt) - Date.now()));
  return expireQuote(input.quoteId);
}

/**
 * An issued invoice's due date, `invoice:<id>`: sleeps until the due date has passed, then sends the
 * first overdue reminder (invoice.overdue). Paying cancels it; a payment whose cancel was lost is seen
 * by the activity, which then does nothing.
 */
export async function invoiceDueWorkflow(input: InvoiceTimerInput): Promise<boolean> {
  await sleep(Math.max(0, Date.parse(input.dueAt) - Date.now()));
  return remindOverdueInvoice(input.invoiceId);
}

// Auto-upgrade, both timers: they sleep until a date weeks ahead; a change to either ships behind patched()
// (docs/temporal.md, "Deploys").
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, quoteExpiryWorkflow);
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, invoiceDueWorkflow);
