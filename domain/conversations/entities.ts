import { AUTHENTICITIES, type Authenticity } from '../kernel/channels';
import { clockDefault, entity, inWorkspace, oneOfCheck, references, uuidKey } from '../kernel/entity';

const DIRECTIONS = ['inbound', 'outbound'] as const;
/** What the recipient's side reported of an email we sent, authenticated. */
const FEEDBACKS = ['hard_bounce', 'complaint'] as const;
export type Feedback = (typeof FEEDBACKS)[number];

export type Message = {
  id: string;
  workspace_id: string;
  lead_id: string;
  channel: string;
  direction: (typeof DIRECTIONS)[number];
  status: string;
  body: string;
  at: Date;
  /** Outbound: the address or number it goes to, fixed when it was queued. */
  to_address: string | null;
  subject: string | null;
  /** Outbound: hand-overs to the provider so far. */
  attempts: number;
  /** Outbound: why the last attempt failed, as the provider said it. */
  error: string | null;
  /** The provider's id: an email's Message-ID, an SMS's sid. */
  provider_message_id: string | null;
  /** An email's Message-ID it answers, so the reply threads. */
  in_reply_to: string | null;
  /** A campaign's message: it carries an unsubscribe link in its body. */
  marketing: boolean;
  /** Outbound: when its sending workflow was started; null while it waits for the relay. */
  started_at: Date | null;
  sent_at: Date | null;
  /** A campaign's send: (campaign, lead, step) is unique, so no step reaches a lead twice. */
  campaign_id: string | null;
  campaign_step: number | null;
  /**
   * Inbound: what it says, by the reply rules (domain/leads/reply-reading.ts). The labels are the same in
   * every rules version, so the column keeps no version.
   */
  classification: string | null;
  /**
   * Inbound email: whether its sender is proven (an unverified one is kept and shown, and acts on
   * nothing); null for other channels and for mail stored before verdicts were kept.
   */
  authenticity: Authenticity | null;
  /** Inbound email: the checks behind the verdict, domains only ("dkim=pass (x.example); spf=...; dmarc=..."). */
  authentication: string | null;
  /** Outbound email: a proven hard bounce or spam complaint about it (mail_reports keeps every report). */
  feedback: Feedback | null;
  /** Outbound, queued by a change: that change's W3C trace context, which its sending continues. */
  traceparent: string | null;
  /**
   * Outbound email: the random left part of its Message-ID (`<mail_id@domain>`), fixed when queued so
   * a resend keeps it; unrelated to `id`, so the header a recipient reads names nothing of ours.
   */
  mail_id: string;
  /**
   * Outbound: a personal page the body links to (a quote's page), named in the stored body by `label`
   * ("[link to quote Q-0012, revision 2]"). The link itself is derived from the server's key at hand-over
   * and exists only in what leaves for the recipient.
   */
  page_link: PageLink | null;
};

/** A bearer link a message carries: the page's path, whose page it is, and the words stored in its place. */
export type PageLink = { path: string; subject: string; label: string };
export const MessageEntity = entity<Message>({
  name: 'Message',
  tableName: 'messages',
  columns: {
    id: uuidKey('messages'),
    workspace_id: { type: 'uuid' },
    lead_id: { type: 'uuid' },
    channel: { type: 'text' },
    direction: { type: 'text' },
    status: { type: 'text' },
    body: { type: 'text' },
    at: clockDefault,
    to_address: { type: 'text', nullable: true },
    subject: { type: 'text', nullable: true },
    attempts: { type: 'integer', default: 0 },
    error: { type: 'text', nullable: true },
    provider_message_id: { type: 'text', nullable: true },
    in_reply_to: { type: 'text', nullable: true },
    marketing: { type: 'boolean', default: false },
    started_at: { type: 'timestamptz', nullable: true },
    sent_at: { type: 'timestamptz', nullable: true },
    campaign_id: { type: 'uuid', nullable: true },
    campaign_step: { type: 'integer', nullable: true },
    classification: { type: 'text', nullable: true },
    authenticity: { type: 'text', nullable: true },
    authentication: { type: 'text', nullable: true },
    feedback: { type: 'text', nullable: true },
    traceparent: { type: 'text', nullable: true },
    mail_id: { type: 'uuid', generated: 'uuid' },
    page_link: { type: 'jsonb', nullable: true },
  },
  relations: {
    ...inWorkspace('messages'),
    lead: references('messages', 'lead_id', 'Lead'),
    campaign: {
      type: 'many-to-one',
      target: 'Campaign',
      joinColumn: { name: 'campaign_id', foreignKeyConstraintName: 'messages_campaign_id_fkey' },
      onDelete: 'SET NULL',
      nullable: true,
    },
  },
  checks: [
    oneOfCheck('messages', 'direction', DIRECTIONS),
    oneOfCheck('messages', 'authenticity', AUTHENTICITIES),
    oneOfCheck('messages', 'feedback', FEEDBACKS),
  ],
  // A lead's newest first (DESC; the migration made it).
  indices: [
    { name: 'messages_lead_recent', columns: ['lead_id', 'at', 'id'], synchronize: false },
    // Partial indexes (the relay's queue, inbound replays), which the migration made.
    { name: 'messages_unstarted', columns: ['workspace_id', 'at'], synchronize: false },
    { name: 'messages_campaign_at', columns: ['workspace_id', 'at'], synchronize: false },
    { name: 'messages_campaign_feedback', columns: ['campaign_id'], synchronize: false },
    {
      name: 'messages_campaign_send',
      columns: ['campaign_id', 'lead_id', 'campaign_step'],
      unique: true,
      synchronize: false,
    },
    {
      name: 'messages_provider_id',
      columns: ['workspace_id', 'channel', 'provider_message_id'],
      unique: true,
      synchronize: false,
    },
  ],
});

const REPORT_KINDS = ['bounce', 'complaint'] as const;
/** What proved a report is about an email of ours: its return path's MAC, or a feedback loop we trust. */
const REPORT_PROOFS = ['verp', 'feedback_domain'] as const;
export type ReportProof = (typeof REPORT_PROOFS)[number];

/**
 * A bounce or complaint report that reached the inbound route, proven or not: one row per report (a
 * replay of the same report's Message-ID is not stored again). Only a proven one may change anything;
 * an unproven one says why (`reason`). No address is kept: the message says whom it went to.
 */
export type MailReport = {
  id: string;
  workspace_id: string;
  /** The email of ours it is about, when one was found (by its return path or its Message-ID). */
  message_id: string | null;
  kind: (typeof REPORT_KINDS)[number];
  proven: boolean;
  proof: ReportProof | null;
  /** Why it is not proven; null when it is. */
  reason: string | null;
  /** A bounce's RFC 3463 status (5.1.1). */
  status: string | null;
  /** A complaint's ARF Feedback-Type (abuse). */
  feedback_type: string | null;
  /** The report's own Message-ID: a replayed report is stored, and acts, once. */
  report_message_id: string | null;
  received_at: Date;
};

export const MailReportEntity = entity<MailReport>({
  name: 'MailReport',
  tableName: 'mail_reports',
  columns: {
    id: uuidKey('mail_reports'),
    workspace_id: { type: 'uuid' },
    message_id: { type: 'uuid', nullable: true },
    kind: { type: 'text' },
    proven: { type: 'boolean' },
    proof: { type: 'text', nullable: true },
    reason: { type: 'text', nullable: true },
    status: { type: 'text', nullable: true },
    feedback_type: { type: 'text', nullable: true },
    report_message_id: { type: 'text', nullable: true },
    received_at: clockDefault,
  },
  relations: {
    ...inWorkspace('mail_reports'),
    message: references('mail_reports', 'message_id', 'Message', { setNull: true }),
  },
  checks: [
    oneOfCheck('mail_reports', 'kind', REPORT_KINDS),
    oneOfCheck('mail_reports', 'proof', REPORT_PROOFS),
  ],
  // Partial indexes, which the migration made; and the retention purge's.
  indices: [
    { name: 'mail_reports_message', columns: ['message_id'], synchronize: false },
    { name: 'mail_reports_received', columns: ['received_at'] },
    {
      name: 'mail_reports_report_message_id',
      columns: ['workspace_id', 'report_message_id'],
      unique: true,
      synchronize: false,
    },
  ],
});
