import * as yup from 'yup';
import { DomainError, invalid } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { moveStatus } from '../../leads';
import { money, mrrOf } from '../documents';
import { closeOpportunity } from '../opportunity-lifecycle';
import { invoicesIn } from '../repository/invoices';
import { lockedWithLead } from '../repository/lock-order';
import { SALES_WRITE } from '../requirements';
import { idField } from '../schemas';
import { INVOICE, invoiceSubject, invoiceView } from '../views';

export const payInvoice = defineOperation({
  name: 'invoice.pay',
  title: 'Record an invoice as paid in full',
  description:
    'Records the full payment of an issued invoice: invoice.paid, the opportunity closed as won with the payment (opportunity.won), the lead moved to WON, and the due-date reminder cancelled. An invoice already paid is refused; a partial amount is refused.',
  returns: 'The invoice, paid.',
  requirement: SALES_WRITE,
  reach: 'record',
  ...WRITE,
  input: yup.object({
    invoice: idField('invoice', 'The invoice.'),
    amount: describe(
      yup
        .number()
        .typeError('amount must be a whole number of minor units')
        .integer('amount must be a whole number of minor units'),
      'The amount received, in minor units: must be the amount due (default: the amount due).',
    ),
  }),
  output: INVOICE,
  doors: { admin: { command: 'invoice pay', flags: (f) => ({ invoice: f.invoice, amount: f.amount }) } },
  summary: (i) => `Record invoice ${i.invoice} as paid`,
  run: async (ctx, i) => {
    const { row: invoice, lead, data } = await lockedWithLead(ctx.data, invoicesIn, i.invoice);
    if (invoice.status === 'PAID')
      throw new DomainError('conflict', `Invoice ${invoice.number} is already paid.`, { field: 'invoice' });
    const due = Number(invoice.total) - Number(invoice.amount_paid);
    if (i.amount !== undefined && i.amount !== due)
      throw invalid(
        'amount',
        `amount must be the amount due, ${due} (${money(due, invoice.currency)}): only payment in full is recorded`,
      );
    const now = ctx.services.clock?.() ?? new Date();
    const paid = await invoicesIn(data).change(invoice.id, {
      status: 'PAID',
      amount_paid: invoice.total,
      paid_at: now,
    });
    await ctx.emit(invoice.workspace_id, 'invoice.paid', invoiceSubject(invoice), {
      invoice_id: invoice.id,
      number: invoice.number,
      total: Number(invoice.total),
      currency: invoice.currency,
      quote_id: invoice.quote_id,
      lead_id: invoice.lead_id,
      paid_at: now.toISOString(),
    });
    const c = { ...ctx, data };
    const reason = `Invoice ${invoice.number} was paid.`;
    await closeOpportunity(c, lead, 'WON', reason, {
      invoice_id: invoice.id,
      amount: Number(invoice.total),
      currency: invoice.currency,
      recurring: invoice.recurring_interval !== null,
      interval: invoice.recurring_interval,
      mrr: mrrOf(Number(invoice.total), invoice.recurring_interval),
    });
    // A confirmed payment is the proof a deal is won: the lead moves to WON from wherever it is (the
    // status rules govern what people and agents may move; they cannot undo a payment).
    if (lead.status !== 'WON') await moveStatus(c, lead, 'WON', { follow_up: 'STOPPED' }, reason);
    // The payment is committed whatever Temporal answers: a timer left running wakes at the due date,
    // finds the invoice paid and sends nothing.
    ctx.afterCommit(() => ctx.services.cancelTimers.invoiceDue(invoice.id).catch(() => undefined));
    ctx.audit(invoice.workspace_id, {
      invoice_id: invoice.id,
      number: invoice.number,
      amount: Number(invoice.total),
    });
    return invoiceView(paid);
  },
});
