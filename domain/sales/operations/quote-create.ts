import { randomUUID } from 'node:crypto';
import * as yup from 'yup';
import { WRITE, defineOperation } from '../../kernel/operation';
import { lockLead } from '../../leads';
import { priced } from '../documents';
import { openOpportunity } from '../opportunity-lifecycle';
import { notPast, todayIn } from '../quote-lifecycle';
import { quotesIn } from '../repository/quotes';
import { SALES_WRITE } from '../requirements';
import {
  currencyField,
  dayField,
  idField,
  intervalField,
  intervalOf,
  linesField,
  quoteFlags,
} from '../schemas';
import { QUOTE, quoteView } from '../views';

export const createQuote = defineOperation({
  name: 'quote.create',
  title: 'Create a quote',
  description:
    "Drafts a quote for a lead: lines, currency, valid-until date and, for a recurring price, its interval. It belongs to the lead's open opportunity (one is opened by hand when there is none). It gets its number when first sent.",
  returns: 'The draft quote (revision 1).',
  requirement: SALES_WRITE,
  reach: 'workspace',
  ...WRITE,
  input: yup.object({
    lead: idField('lead', 'The lead the quote is for.'),
    currency: currencyField.required('currency is required'),
    lines: linesField.required('lines is required'),
    valid_until: dayField(
      'valid_until',
      'The last day it can be accepted (YYYY-MM-DD, workspace time zone).',
    ).required('valid_until is required'),
    interval: intervalField,
  }),
  output: QUOTE,
  doors: { admin: { command: 'quote create', flags: (f) => ({ lead: f.lead, ...quoteFlags(f) }) } },
  summary: (i) => `Draft a quote for lead ${i.lead}`,
  run: async (ctx, i) => {
    const { lead, data } = await lockLead(ctx.data, i.lead);
    const { today } = await todayIn({ ...ctx, data }, lead.workspace_id);
    notPast(i.valid_until, today, 'valid_until');
    const opportunity = await openOpportunity({ ...ctx, data }, lead, 'MANUAL', 'QUALIFIED');
    const { lines, total } = priced(i.lines);
    const id = randomUUID();
    const q = await quotesIn(data).insert({
      id,
      family_id: id,
      revision: 1,
      opportunity_id: opportunity.id,
      lead_id: lead.id,
      currency: i.currency,
      lines,
      total: String(total),
      recurring_interval: intervalOf(i.interval) ?? null,
      valid_until: i.valid_until,
    });
    ctx.audit(lead.workspace_id, { quote_id: q.id, lead_id: lead.id, opportunity_id: opportunity.id });
    return quoteView(q);
  },
});
