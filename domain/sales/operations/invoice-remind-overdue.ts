import * as yup from 'yup';
import { queueMessage } from '../../conversations';
import { DomainError } from '../../kernel/errors';
import { WRITE, defineOperation } from '../../kernel/operation';
import { boolean, object } from '../../kernel/shapes';
import { money } from '../documents';
import { invoicesIn } from '../repository/invoices';
import { lockedWithLead } from '../repository/lock-order';
import { SALES_WRITE } from '../requirements';
import { idField } from '../schemas';
import { invoiceSubject } from '../views';

/**
 * Run by an issued invoice's timer when its due date has passed: the first overdue reminder by email
 * (when the customer can be emailed) and invoice.overdue with the amount still due. Paid, or already
 * reminded: nothing.
 */
export const remindOverdueInvoice = defineOperation({
  name: 'invoice.remind_overdue',
  title: 'Send the first overdue reminder',
  description: 'An issued invoice past its due date, unpaid: a reminder email and invoice.overdue.',
  returns: '{ reminded }.',
  requirement: SALES_WRITE,
  reach: 'record',
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
  openWorld: true,
  input: yup.object({ invoice: idField('invoice', 'The invoice.') }),
  output: object({ reminded: boolean }),
  doors: {},
  summary: (i) => `Remind the customer of overdue invoice ${i.invoice}`,
  run: async (ctx, i) => {
    const { row: invoice, lead, data } = await lockedWithLead(ctx.data, invoicesIn, i.invoice);
    if (invoice.status !== 'ISSUED' || invoice.overdue_at) return { reminded: false };
    const due = Number(invoice.total) - Number(invoice.amount_paid);
    let messageId: string | null = null;
    try {
      const name = lead.first_name ? ` ${lead.first_name}` : '';
      const m = await queueMessage(data, lead, {
        channel: 'email',
        subject: `Invoice ${invoice.number} is overdue`,
        body: [
          `Hello${name},`,
          '',
          `Invoice ${invoice.number} was due on ${invoice.due_date} and ${money(due, invoice.currency)} is still open.`,
          'If you have already paid, thank you, and please ignore this reminder.',
        ].join('\n'),
      });
      messageId = m.id;
    } catch (err) {
      // No address, or the customer opted out: the event still says it is overdue, with no reminder.
      if (!(err instanceof DomainError)) throw err;
    }
    const now = ctx.services.clock?.() ?? new Date();
    await invoicesIn(data).change(invoice.id, { overdue_at: now, reminder_message_id: messageId });
    await ctx.emit(invoice.workspace_id, 'invoice.overdue', invoiceSubject(invoice), {
      invoice_id: invoice.id,
      number: invoice.number,
      amount_due: due,
      currency: invoice.currency,
      due_date: invoice.due_date,
      lead_id: invoice.lead_id,
      reminder_message_id: messageId,
    });
    ctx.audit(invoice.workspace_id, {
      invoice_id: invoice.id,
      number: invoice.number,
      reminded: messageId !== null,
    });
    return { reminded: true };
  },
});
