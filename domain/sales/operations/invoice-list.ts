import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { page } from '../../kernel/shapes';
import { INVOICE_STATUSES } from '../entities';
import { invoicesIn } from '../repository/invoices';
import { SALES_READ } from '../requirements';
import { INVOICE, invoiceView } from '../views';
import { listLimit } from '../schemas';

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
    limit: listLimit,
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
