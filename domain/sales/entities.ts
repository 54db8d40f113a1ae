import type { SellerProfile } from '../identity';
import { OPPORTUNITY_STAGES, type OpportunityStage } from '../kernel/event-catalogue';
import {
  clockDefault,
  entity,
  inWorkspace,
  lengthCheck,
  oneOfCheck,
  references,
  uuidKey,
} from '../kernel/entity';

export const MOTIONS = ['INBOUND', 'OUTBOUND'] as const;
export const ORIGINS = ['BOOKING', 'BUYING_INTENT', 'MANUAL'] as const;
export const INTERVALS = ['month', 'year'] as const;
export type Interval = (typeof INTERVALS)[number];

/** The payment that closed an opportunity as won, as opportunity.won carries it. */
export type Payment = {
  invoice_id: string;
  amount: number;
  currency: string;
  recurring: boolean;
  interval: Interval | null;
  mrr: number | null;
};

export type Opportunity = {
  id: string;
  workspace_id: string;
  lead_id: string;
  stage: OpportunityStage;
  motion: (typeof MOTIONS)[number];
  origin: (typeof ORIGINS)[number];
  close_reason: string | null;
  payment: Payment | null;
  created_at: Date;
  closed_at: Date | null;
};
export const OpportunityEntity = entity<Opportunity>({
  name: 'Opportunity',
  tableName: 'opportunities',
  columns: {
    id: uuidKey('opportunities'),
    workspace_id: { type: 'uuid' },
    lead_id: { type: 'uuid' },
    stage: { type: 'text' },
    motion: { type: 'text' },
    origin: { type: 'text' },
    close_reason: { type: 'text', nullable: true },
    payment: { type: 'jsonb', nullable: true },
    created_at: clockDefault,
    closed_at: { type: 'timestamptz', nullable: true },
  },
  relations: {
    ...inWorkspace('opportunities'),
    lead: references('opportunities', 'lead_id', 'Lead'),
  },
  checks: [
    oneOfCheck('opportunities', 'stage', OPPORTUNITY_STAGES),
    oneOfCheck('opportunities', 'motion', MOTIONS),
    oneOfCheck('opportunities', 'origin', ORIGINS),
  ],
  // Partial (one open opportunity per lead) and DESC: the migration made them.
  indices: [
    { name: 'opportunities_open_lead', columns: ['lead_id'], unique: true, synchronize: false },
    { name: 'opportunities_workspace', columns: ['workspace_id', 'created_at'], synchronize: false },
  ],
});

const COUNTER_KINDS = ['quote', 'invoice'] as const;
export type CounterKind = (typeof COUNTER_KINDS)[number];

/** The last number a workspace gave out, per kind of document. */
export type DocumentCounter = { workspace_id: string; kind: CounterKind; last: number };
export const DocumentCounterEntity = entity<DocumentCounter>({
  name: 'DocumentCounter',
  tableName: 'document_counters',
  columns: {
    workspace_id: { type: 'uuid', primary: true, primaryKeyConstraintName: 'document_counters_pkey' },
    kind: { type: 'text', primary: true, primaryKeyConstraintName: 'document_counters_pkey' },
    last: { type: 'integer' },
  },
  relations: inWorkspace('document_counters'),
  checks: [oneOfCheck('document_counters', 'kind', COUNTER_KINDS)],
});

/** A line of a quote or invoice; amounts in the currency's minor unit. */
export type Line = { description: string; quantity: number; unit_amount: number; amount: number };

export const QUOTE_STATUSES = ['DRAFT', 'SENT', 'ACCEPTED', 'DECLINED', 'EXPIRED', 'SUPERSEDED'] as const;
type QuoteStatus = (typeof QUOTE_STATUSES)[number];

/** One revision of a quote. Revisions of one quote share `family_id` (the first's id) and its number. */
/** The seller a sent quote names: the profile then, with the workspace's name when it had none. */
type QuoteSeller = SellerProfile & { name: string };

export type Quote = {
  id: string;
  workspace_id: string;
  opportunity_id: string;
  lead_id: string;
  family_id: string;
  revision: number;
  /** Given when the family is first sent; null for a draft never sent. */
  number: string | null;
  status: QuoteStatus;
  currency: string;
  lines: Line[];
  /** bigint: PostgreSQL's driver returns it as a string. */
  total: string;
  recurring_interval: Interval | null;
  /** YYYY-MM-DD: the last day it can be accepted, in the workspace's time zone. */
  valid_until: string;
  /** The instant it expires (the end of valid_until there), fixed when sent. */
  expires_at: Date | null;
  /** SHA-256 of the revision as the customer sees it, fixed when sent. */
  document_sha256: string | null;
  /**
   * Who it is from and on what terms, as the seller profile said when it was sent (its document hash
   * covers it); null for a draft, and for a quote sent before quotes kept it.
   */
  seller: QuoteSeller | null;
  /**
   * SHA-256 of the random page token of a revision sent before page links were derived (its link is in
   * the customer's email and still opens the page); null for later ones, whose token is derived from
   * the revision's id and the server's key when the email leaves, and stored nowhere.
   */
  token_hash: string | null;
  /** The email that carried the link. */
  message_id: string | null;
  created_at: Date;
  sent_at: Date | null;
  viewed_at: Date | null;
  decided_at: Date | null;
  /** When its expiry workflow was started; null while the relay has one to start. */
  timer_started_at: Date | null;
};
export const QuoteEntity = entity<Quote>({
  name: 'Quote',
  tableName: 'quotes',
  columns: {
    id: uuidKey('quotes'),
    workspace_id: { type: 'uuid' },
    opportunity_id: { type: 'uuid' },
    lead_id: { type: 'uuid' },
    family_id: { type: 'uuid' },
    revision: { type: 'integer' },
    number: { type: 'text', nullable: true },
    status: { type: 'text', default: 'DRAFT' },
    currency: { type: 'text' },
    lines: { type: 'jsonb' },
    total: { type: 'bigint' },
    recurring_interval: { type: 'text', nullable: true },
    valid_until: { type: 'date' },
    expires_at: { type: 'timestamptz', nullable: true },
    document_sha256: { type: 'text', nullable: true },
    seller: { type: 'jsonb', nullable: true },
    token_hash: { type: 'text', nullable: true },
    message_id: { type: 'uuid', nullable: true },
    created_at: clockDefault,
    sent_at: { type: 'timestamptz', nullable: true },
    viewed_at: { type: 'timestamptz', nullable: true },
    decided_at: { type: 'timestamptz', nullable: true },
    timer_started_at: { type: 'timestamptz', nullable: true },
  },
  relations: {
    ...inWorkspace('quotes'),
    opportunity: references('quotes', 'opportunity_id', 'Opportunity'),
    lead: references('quotes', 'lead_id', 'Lead'),
  },
  uniques: [
    { name: 'quotes_family_revision', columns: ['family_id', 'revision'] },
    { name: 'quotes_token_hash_key', columns: ['token_hash'] },
  ],
  checks: [
    oneOfCheck('quotes', 'status', QUOTE_STATUSES),
    oneOfCheck('quotes', 'recurring_interval', INTERVALS),
    { name: 'quotes_revision_check', expression: '(revision >= 1)' },
    { name: 'quotes_total_check', expression: '(total >= 0)' },
  ],
  indices: [
    { name: 'quotes_opportunity', columns: ['opportunity_id', 'created_at'], synchronize: false },
    { name: 'quotes_timer_unstarted', columns: ['sent_at'], synchronize: false },
  ],
});

/** The simple electronic signature that accepted a quote revision, with what makes it evidence. */
export type QuoteSignature = {
  id: string;
  workspace_id: string;
  quote_id: string;
  typed_name: string;
  /** The exact words the signer agreed to, and their version. */
  consent_text: string;
  consent_version: string;
  /** SHA-256 of the revision the signer was shown (the page carries it; a changed revision is refused). */
  document_sha256: string;
  client_ip: string | null;
  user_agent: string | null;
  signed_at: Date;
};
export const QuoteSignatureEntity = entity<QuoteSignature>({
  name: 'QuoteSignature',
  tableName: 'quote_signatures',
  columns: {
    id: uuidKey('quote_signatures'),
    workspace_id: { type: 'uuid' },
    quote_id: { type: 'uuid' },
    typed_name: { type: 'text' },
    consent_text: { type: 'text' },
    consent_version: { type: 'text' },
    document_sha256: { type: 'text' },
    client_ip: { type: 'text', nullable: true },
    user_agent: { type: 'text', nullable: true },
    signed_at: clockDefault,
  },
  relations: {
    ...inWorkspace('quote_signatures'),
    quote: references('quote_signatures', 'quote_id', 'Quote'),
  },
  uniques: [{ name: 'quote_signatures_quote_id_key', columns: ['quote_id'] }],
  checks: [lengthCheck('quote_signatures', 'typed_name', 1, 200)],
});

export const INVOICE_STATUSES = ['ISSUED', 'PAID'] as const;

export type Invoice = {
  id: string;
  workspace_id: string;
  quote_id: string;
  opportunity_id: string;
  lead_id: string;
  number: string;
  status: (typeof INVOICE_STATUSES)[number];
  currency: string;
  lines: Line[];
  total: string;
  amount_paid: string;
  recurring_interval: Interval | null;
  /** YYYY-MM-DD, and the instant it falls due (the end of that day in the workspace's time zone). */
  due_date: string;
  due_at: Date;
  issued_at: Date;
  paid_at: Date | null;
  /** When the first overdue reminder went out. */
  overdue_at: Date | null;
  reminder_message_id: string | null;
  /** When its due-date workflow was started; null while the relay has one to start. */
  timer_started_at: Date | null;
};
export const InvoiceEntity = entity<Invoice>({
  name: 'Invoice',
  tableName: 'invoices',
  columns: {
    id: uuidKey('invoices'),
    workspace_id: { type: 'uuid' },
    quote_id: { type: 'uuid' },
    opportunity_id: { type: 'uuid' },
    lead_id: { type: 'uuid' },
    number: { type: 'text' },
    status: { type: 'text', default: 'ISSUED' },
    currency: { type: 'text' },
    lines: { type: 'jsonb' },
    total: { type: 'bigint' },
    amount_paid: { type: 'bigint', default: 0 },
    recurring_interval: { type: 'text', nullable: true },
    due_date: { type: 'date' },
    due_at: { type: 'timestamptz' },
    issued_at: clockDefault,
    paid_at: { type: 'timestamptz', nullable: true },
    overdue_at: { type: 'timestamptz', nullable: true },
    reminder_message_id: { type: 'uuid', nullable: true },
    timer_started_at: { type: 'timestamptz', nullable: true },
  },
  relations: {
    ...inWorkspace('invoices'),
    quote: references('invoices', 'quote_id', 'Quote'),
    opportunity: references('invoices', 'opportunity_id', 'Opportunity'),
    lead: references('invoices', 'lead_id', 'Lead'),
  },
  uniques: [
    { name: 'invoices_quote_id_key', columns: ['quote_id'] },
    { name: 'invoices_workspace_number', columns: ['workspace_id', 'number'] },
  ],
  checks: [
    oneOfCheck('invoices', 'status', INVOICE_STATUSES),
    oneOfCheck('invoices', 'recurring_interval', INTERVALS),
    { name: 'invoices_total_check', expression: '(total >= 0)' },
  ],
  indices: [{ name: 'invoices_timer_unstarted', columns: ['issued_at'], synchronize: false }],
});
