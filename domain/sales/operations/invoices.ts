import * as yup from 'yup';
import { queueMessage } from '../../conversations';
import { DomainError, invalid } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, WRITE, defineOperation } from '../../kernel/operation';
import { boolean, object, page } from '../../kernel/shapes';
import { lockLead, moveStatus } from '../../leads';
import { INVOICE_STATUSES, type Invoice } from '../entities';
import { addDays, endOfDay, money, mrrOf } from '../documents';
import { closeOpportunity } from '../opportunities';
import { notPast, todayIn } from '../quote-lifecycle';
import { invoicesIn, nextNumber, quotesIn, lockedWithLead } from '../repository';
import { SALES_READ, SALES_WRITE } from '../requirements';
import { dayField, idField } from '../schemas';
import { INVOICE, invoiceView, invoiceWorkflowId } from '../views';

const invoiceField = idField('invoice', 'The invoice.');
const DEFAULT_TERMS_DAYS = 14;
const subjectOf = (i: Invoice) => ({ type: 'invoice' as const, id: i.id });

export const issueInvoice = defineOperation({
  name: 'invoice.issue',
  title: 'Issue an invoice from an accepted quote',
  description:
    'Issues the invoice for an accepted quote: its lines and total, a number (gap-free per workspace, also under concurrent issuing) and a due date (default 14 days). A quote not accepted, or already invoiced, is refused. A reminder goes out by email if it is still unpaid when the due date has passed.',
  returns: 'The invoice.',
  requirement: SALES_WRITE,
  reach: 'record',
  ...WRITE,
  input: yup.object({
    quote: idField('quote', 'The accepted quote revision.'),
    due_date: dayField(
      'due_date',
      'When it falls due (YYYY-MM-DD, workspace time zone); default 14 days from today.',
    ),
  }),
  output: INVOICE,
  doors: { admin: { command: 'invoice issue', flags: (f) => ({ quote: f.quote, due_date: f['due-date'] }) } },
  summary: (i) => `Issue the invoice for quote ${i.quote}`,
  run: async (ctx, i) => {
    const found = await quotesIn(ctx.data).mustFind(i.quote);
    const { data } = await lockLead(ctx.data, found.lead_id);
    const quote = await quotesIn(data).mustFind(found.id, true);
    if (quote.status !== 'ACCEPTED')
      throw new DomainError('conflict', `Only an accepted quote is invoiced; this one is ${quote.status}.`, {
        field: 'quote',
      });
    const invoices = invoicesIn(data);
    const existing = await invoices.ofQuote(quote.id);
    if (existing)
      throw new DomainError('conflict', `This quote was already invoiced as ${existing.number}.`, {
        field: 'quote',
        invoice_id: existing.id,
      });
    const { zone, today } = await todayIn({ ...ctx, data }, quote.workspace_id);
    const dueDate = i.due_date ?? addDays(today, DEFAULT_TERMS_DAYS);
    notPast(dueDate, today, 'due_date');
    const invoice = await invoices.insert({
      quote_id: quote.id,
      opportunity_id: quote.opportunity_id,
      lead_id: quote.lead_id,
      number: await nextNumber(data, 'invoice'),
      currency: quote.currency,
      lines: quote.lines,
      total: quote.total,
      recurring_interval: quote.recurring_interval,
      due_date: dueDate,
      due_at: endOfDay(dueDate, zone),
    });
    await ctx.emit(quote.workspace_id, 'invoice.issued', subjectOf(invoice), {
      invoice_id: invoice.id,
      number: invoice.number,
      total: Number(invoice.total),
      currency: invoice.currency,
      due_date: invoice.due_date,
      quote_id: quote.id,
      lead_id: quote.lead_id,
    });
    ctx.audit(quote.workspace_id, { invoice_id: invoice.id, number: invoice.number, quote_id: quote.id });
    return invoiceView(invoice);
  },
});

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
    invoice: invoiceField,
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
    await ctx.emit(invoice.workspace_id, 'invoice.paid', subjectOf(invoice), {
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
    const cancel = ctx.services.cancelTimers;
    // The payment is committed whatever Temporal answers: a timer left running wakes at the due date,
    // finds the invoice paid and sends nothing.
    if (cancel) ctx.afterCommit(() => cancel([invoiceWorkflowId(invoice.id)]).catch(() => undefined));
    ctx.audit(invoice.workspace_id, {
      invoice_id: invoice.id,
      number: invoice.number,
      amount: Number(invoice.total),
    });
    return invoiceView(paid);
  },
});

export const getInvoice = defineOperation({
  name: 'invoice.get',
  title: 'Read an invoice',
  description: 'One invoice: lines, total, what is still due, and when it was paid or reminded.',
  returns: 'The invoice.',
  requirement: SALES_READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({ invoice: invoiceField }),
  output: INVOICE,
  doors: { admin: { command: 'invoice get', flags: (f) => ({ invoice: f.invoice ?? f.id }) } },
  summary: (i) => `Read invoice ${i.invoice}`,
  run: async (ctx, i) => invoiceView(await invoicesIn(ctx.data).mustFind(i.invoice)),
});

export const listInvoices = defineOperation({
  name: 'invoice.list',
  title: 'List invoices',
  description: 'Invoices, newest first, optionally of one lead or in one status.',
  returns: '{ data: [invoice], count }.',
  requirement: SALES_READ,
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({
    lead: describe(
      yup.string().typeError('lead must be a UUID').uuid('lead must be a UUID'),
      'Only this lead’s.',
    ),
    status: describe(
      yup
        .string()
        .typeError('status must be ISSUED or PAID')
        .uppercase()
        .oneOf([...INVOICE_STATUSES], 'status must be ISSUED or PAID'),
      'Only this status.',
    ),
    limit: describe(
      yup
        .number()
        .typeError('limit must be a number')
        .integer()
        .min(1)
        .max(100, 'limit is at most 100')
        .default(25),
      'At most this many (default 25, at most 100).',
    ),
  }),
  output: page(INVOICE),
  doors: {
    admin: { command: 'invoice list', flags: (f) => ({ lead: f.lead, status: f.status, limit: f.limit }) },
  },
  summary: () => 'List invoices',
  run: async (ctx, i) => {
    const rows = await invoicesIn(ctx.data).list(
      { ...(i.lead && { lead_id: i.lead }), ...(i.status && { status: i.status }) },
      i.limit,
    );
    return { data: rows.map(invoiceView), count: rows.length };
  },
});

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
  input: yup.object({ invoice: invoiceField }),
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
    await ctx.emit(invoice.workspace_id, 'invoice.overdue', subjectOf(invoice), {
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
