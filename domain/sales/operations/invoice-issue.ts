import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { WRITE, defineOperation } from '../../kernel/operation';
import { lockLead } from '../../leads';
import { addDays, endOfDay } from '../documents';
import { notPast, todayIn } from '../quote-lifecycle';
import { nextNumber } from '../repository/counters';
import { invoicesIn } from '../repository/invoices';
import { quotesIn } from '../repository/quotes';
import { SALES_WRITE } from '../requirements';
import { dayField, idField } from '../schemas';
import { INVOICE, invoiceSubject, invoiceView } from '../views';

const DEFAULT_TERMS_DAYS = 14;

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
    await ctx.emit(quote.workspace_id, 'invoice.issued', invoiceSubject(invoice), {
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
