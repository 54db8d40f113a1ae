import * as yup from 'yup';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { invoicesIn } from '../repository/invoices';
import { SALES_READ } from '../requirements';
import { idField } from '../schemas';
import { INVOICE, invoiceView } from '../views';

export const getInvoice = defineOperation({
  name: 'invoice.get',
  title: 'Read an invoice',
  description: 'One invoice: lines, total, what is still due, and when it was paid or reminded.',
  returns: 'The invoice.',
  requirement: SALES_READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({ invoice: idField('invoice', 'The invoice.') }),
  output: INVOICE,
  doors: { admin: { command: 'invoice get', flags: (f) => ({ invoice: f.invoice ?? f.id }) } },
  summary: (i) => `Read invoice ${i.invoice}`,
  run: async (ctx, i) => invoiceView(await invoicesIn(ctx.data).mustFind(i.invoice)),
});
