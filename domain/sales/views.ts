import { arrayOf, boolean, dateTime, integer, nullable, object, oneOf, string, uuid } from '../kernel/shapes';
import {
  INTERVALS,
  INVOICE_STATUSES,
  MOTIONS,
  ORIGINS,
  QUOTE_STATUSES,
  type Invoice,
  type Opportunity,
  type Quote,
  type QuoteSignature,
} from './entities';
import { OPPORTUNITY_STAGES } from '../kernel/event-catalogue';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** An invoice as its events' subject. */
export const invoiceSubject = (i: Invoice) => ({ type: 'invoice' as const, id: i.id });

export const opportunityView = (o: Opportunity) => ({
  id: o.id,
  lead_id: o.lead_id,
  stage: o.stage,
  motion: o.motion,
  origin: o.origin,
  close_reason: o.close_reason,
  payment: o.payment,
  created_at: o.created_at.toISOString(),
  closed_at: iso(o.closed_at),
});

export const quoteView = (q: Quote, signature?: QuoteSignature | null) => ({
  id: q.id,
  family_id: q.family_id,
  revision: q.revision,
  number: q.number,
  status: q.status,
  opportunity_id: q.opportunity_id,
  lead_id: q.lead_id,
  currency: q.currency,
  lines: q.lines,
  total: Number(q.total),
  recurring_interval: q.recurring_interval,
  valid_until: q.valid_until,
  expires_at: iso(q.expires_at),
  document_sha256: q.document_sha256,
  created_at: q.created_at.toISOString(),
  sent_at: iso(q.sent_at),
  viewed_at: iso(q.viewed_at),
  decided_at: iso(q.decided_at),
  signature: signature
    ? {
        id: signature.id,
        typed_name: signature.typed_name,
        consent_version: signature.consent_version,
        document_sha256: signature.document_sha256,
        client_ip: signature.client_ip,
        user_agent: signature.user_agent,
        signed_at: signature.signed_at.toISOString(),
      }
    : null,
});

export const invoiceView = (i: Invoice) => ({
  id: i.id,
  number: i.number,
  status: i.status,
  quote_id: i.quote_id,
  opportunity_id: i.opportunity_id,
  lead_id: i.lead_id,
  currency: i.currency,
  lines: i.lines,
  total: Number(i.total),
  amount_paid: Number(i.amount_paid),
  amount_due: Number(i.total) - Number(i.amount_paid),
  recurring_interval: i.recurring_interval,
  due_date: i.due_date,
  issued_at: i.issued_at.toISOString(),
  paid_at: iso(i.paid_at),
  overdue_at: iso(i.overdue_at),
});

const text = nullable(string());
const minor = integer({ description: "In the currency's minor unit (cents)." });
const day = string({ format: 'date' });
const interval = nullable(oneOf(INTERVALS));
const LINE = object(
  { description: string(), quantity: { type: 'number' }, unit_amount: integer(), amount: integer() },
  { title: 'Line' },
);

export const OPPORTUNITY = object(
  {
    id: uuid,
    lead_id: uuid,
    stage: oneOf(OPPORTUNITY_STAGES),
    motion: oneOf(MOTIONS),
    origin: oneOf(ORIGINS),
    close_reason: text,
    payment: nullable(
      object({
        invoice_id: uuid,
        amount: minor,
        currency: string(),
        recurring: boolean,
        interval,
        mrr: nullable(integer()),
      }),
    ),
    created_at: dateTime,
    closed_at: nullable(dateTime),
  },
  { title: 'Opportunity' },
);

export const QUOTE = object(
  {
    id: uuid,
    family_id: uuid,
    revision: integer({ minimum: 1 }),
    number: text,
    status: oneOf(QUOTE_STATUSES),
    opportunity_id: uuid,
    lead_id: uuid,
    currency: string(),
    lines: arrayOf(LINE),
    total: minor,
    recurring_interval: interval,
    valid_until: day,
    expires_at: nullable(dateTime),
    document_sha256: text,
    created_at: dateTime,
    sent_at: nullable(dateTime),
    viewed_at: nullable(dateTime),
    decided_at: nullable(dateTime),
    signature: nullable(
      object({
        id: uuid,
        typed_name: string(),
        consent_version: string(),
        document_sha256: string(),
        client_ip: text,
        user_agent: text,
        signed_at: dateTime,
      }),
    ),
  },
  { title: 'Quote' },
);

export const INVOICE = object(
  {
    id: uuid,
    number: string(),
    status: oneOf(INVOICE_STATUSES),
    quote_id: uuid,
    opportunity_id: uuid,
    lead_id: uuid,
    currency: string(),
    lines: arrayOf(LINE),
    total: minor,
    amount_paid: minor,
    amount_due: minor,
    recurring_interval: interval,
    due_date: day,
    issued_at: dateTime,
    paid_at: nullable(dateTime),
    overdue_at: nullable(dateTime),
  },
  { title: 'Invoice' },
);
