/** What the sales timers' workflows and their starters agree on (workflow code imports only this). */
export const QUOTE_TIMER_WORKFLOW_TYPE = 'quoteExpiryWorkflow';
export const INVOICE_TIMER_WORKFLOW_TYPE = 'invoiceDueWorkflow';

export type QuoteTimerInput = { quoteId: string; expiresAt: string };
export type InvoiceTimerInput = { invoiceId: string; dueAt: string };
