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
  /** Outbound email: an authenticated hard bounce or spam complaint about it. */
  feedback: Feedback | null;
  /** Outbound, queued by a change: that change's W3C trace context, which its sending continues. */
  traceparent: string | null;
};
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
