import {
  clockDefault,
  entity,
  inWorkspace,
  lengthCheck,
  oneOfCheck,
  references,
  uuidKey,
} from '../kernel/entity';

export const CAMPAIGN_CHANNELS = ['email', 'sms'] as const;
export const CAMPAIGN_STATUSES = ['DRAFT', 'RUNNING', 'PAUSED', 'COMPLETED'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
/** Why a campaign is paused: a person paused it, or the deliverability brake did. */
export const PAUSE_REASONS = ['person', 'deliverability'] as const;
export type PauseReason = (typeof PAUSE_REASONS)[number];

/** Which leads a campaign reaches, decided when it launches. Every part given must match. */
export type Audience = { statuses?: string[]; sources?: string[]; created_since?: string };
/** A message of the sequence, sent `delay_hours` after the previous one (the first: at launch). */
export type Step = { subject?: string; body: string; delay_hours: number };
/**
 * Who an approved launch left out of the audience it fixed, and why: leads that match the audience
 * now but were not among those the person approved (`joined_since`), and approved leads that no longer
 * match it (`no_longer_qualify`: their status or source changed, archived, no address on the channel).
 */
export type LeftOut = { joined_since: number; no_longer_qualify: number };
/** When messages may leave, in the workspace's time zone: weekdays 1 (Monday) to 7, hours [start, end). */
export type SendWindow = { weekdays: number[]; start_hour: number; end_hour: number };

export type Campaign = {
  id: string;
  workspace_id: string;
  name: string;
  channel: (typeof CAMPAIGN_CHANNELS)[number];
  status: CampaignStatus;
  audience: Audience;
  steps: Step[];
  send_window: SendWindow;
  daily_cap: number;
  audience_size: number | null;
  /** Set by a launch a person approved; null otherwise (no approval, or launched before this was kept). */
  left_out: LeftOut | null;
  created_at: Date;
  updated_at: Date;
  launched_at: Date | null;
  completed_at: Date | null;
  /** Set by the workflow's first batch; null while the relay has a workflow to start. */
  workflow_started_at: Date | null;
  /** While PAUSED: who paused it, when, and (the brake) the figures that did. */
  paused_reason: PauseReason | null;
  pause_detail: string | null;
  paused_at: Date | null;
};
export const CampaignEntity = entity<Campaign>({
  name: 'Campaign',
  tableName: 'campaigns',
  columns: {
    id: uuidKey('campaigns'),
    workspace_id: { type: 'uuid' },
    name: { type: 'text' },
    channel: { type: 'text' },
    status: { type: 'text', default: 'DRAFT' },
    audience: { type: 'jsonb' },
    steps: { type: 'jsonb' },
    send_window: { type: 'jsonb' },
    daily_cap: { type: 'integer' },
    audience_size: { type: 'integer', nullable: true },
    left_out: { type: 'jsonb', nullable: true },
    created_at: clockDefault,
    updated_at: clockDefault,
    launched_at: { type: 'timestamptz', nullable: true },
    completed_at: { type: 'timestamptz', nullable: true },
    workflow_started_at: { type: 'timestamptz', nullable: true },
    paused_reason: { type: 'text', nullable: true },
    pause_detail: { type: 'text', nullable: true },
    paused_at: { type: 'timestamptz', nullable: true },
  },
  relations: inWorkspace('campaigns'),
  checks: [
    lengthCheck('campaigns', 'name', 1, 200),
    oneOfCheck('campaigns', 'channel', CAMPAIGN_CHANNELS),
    oneOfCheck('campaigns', 'status', CAMPAIGN_STATUSES),
    oneOfCheck('campaigns', 'paused_reason', PAUSE_REASONS),
    { name: 'campaigns_daily_cap_check', expression: '(daily_cap >= 1)' },
  ],
  indices: [
    { name: 'campaigns_workspace', columns: ['workspace_id', 'created_at'], synchronize: false },
    { name: 'campaigns_unstarted', columns: ['launched_at'], synchronize: false },
  ],
});

const RECIPIENT_STATUSES = ['ACTIVE', 'DONE', 'LEFT'] as const;

export type Recipient = {
  campaign_id: string;
  lead_id: string;
  workspace_id: string;
  /** Order in the audience as fixed at launch: batches go in this order. */
  position: number;
  status: (typeof RECIPIENT_STATUSES)[number];
  /** Why the lead left the sequence: replied, booked, closed, opted out, unreachable. */
  left_reason: string | null;
  next_step: number;
  due_at: Date;
};
export const RecipientEntity = entity<Recipient>({
  name: 'Recipient',
  tableName: 'campaign_recipients',
  columns: {
    campaign_id: { type: 'uuid', primary: true, primaryKeyConstraintName: 'campaign_recipients_pkey' },
    lead_id: { type: 'uuid', primary: true, primaryKeyConstraintName: 'campaign_recipients_pkey' },
    workspace_id: { type: 'uuid' },
    position: { type: 'integer' },
    status: { type: 'text', default: 'ACTIVE' },
    left_reason: { type: 'text', nullable: true },
    next_step: { type: 'integer', default: 0 },
    due_at: { type: 'timestamptz' },
  },
  relations: {
    ...inWorkspace('campaign_recipients'),
    campaign: references('campaign_recipients', 'campaign_id', 'Campaign'),
    lead: references('campaign_recipients', 'lead_id', 'Lead'),
  },
  checks: [oneOfCheck('campaign_recipients', 'status', RECIPIENT_STATUSES)],
  indices: [
    { name: 'campaign_recipients_due', columns: ['campaign_id', 'due_at', 'position'], synchronize: false },
  ],
});
