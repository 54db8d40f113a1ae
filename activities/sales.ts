import { operatorActor } from '../domain/kernel/actor';
import type { Services } from '../domain/kernel/operation';
import { runOperation } from '../domain/kernel/runner';
import { expireQuote, remindOverdueInvoice } from '../domain/sales';
import { invoiceWorkflowId, quoteWorkflowId } from '../infra/temporal/workflow-ids';

/** The sales timers' work, through the runner like any change (its events, its audit row). */
export const createSalesActivities = (services: Services) => ({
  expireQuote: async (quoteId: string): Promise<string> =>
    (
      await runOperation(
        services,
        expireQuote,
        operatorActor({ door: 'activity', requestId: quoteWorkflowId(quoteId) }),
        { quote: quoteId },
      )
    ).status,
  remindOverdueInvoice: async (invoiceId: string): Promise<boolean> =>
    (
      await runOperation(
        services,
        remindOverdueInvoice,
        operatorActor({ door: 'activity', requestId: invoiceWorkflowId(invoiceId) }),
        { invoice: invoiceId },
      )
    ).reminded,
});
