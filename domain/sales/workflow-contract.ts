/** What the sales timers' workflows and their starters agree on (workflow code imports only this). */
export type QuoteTimerInput = { quoteId: string; expiresAt: string };
export type InvoiceTimerInput = { invoiceId: string; dueAt: string };
