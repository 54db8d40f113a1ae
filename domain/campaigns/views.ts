import {
  accepted,
  arrayOf,
  dateTime,
  integer,
  nullable,
  object,
  oneOf,
  page,
  string,
  uuid,
} from '../kernel/shapes';
import { CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES, PAUSE_REASONS, type Campaign } from './entities';
import type { StepFigures } from './repository/campaigns';
import { audienceField, stepsField, windowField } from './schemas';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A campaign as every door shows it. */
export const campaignView = (c: Campaign) => ({
  id: c.id,
  name: c.name,
  channel: c.channel,
  status: c.status,
  audience: c.audience,
  steps: c.steps,
  window: c.send_window,
  daily_cap: c.daily_cap,
  audience_size: c.audience_size,
  left_out: c.left_out,
  created_at: c.created_at.toISOString(),
  updated_at: c.updated_at.toISOString(),
  launched_at: iso(c.launched_at),
  completed_at: iso(c.completed_at),
  pause:
    c.status === 'PAUSED' && c.paused_reason
      ? { reason: c.paused_reason, detail: c.pause_detail, at: iso(c.paused_at) }
      : null,
});

export const CAMPAIGN = object(
  {
    id: uuid,
    name: string(),
    channel: oneOf(CAMPAIGN_CHANNELS),
    status: oneOf(CAMPAIGN_STATUSES),
    // Stored as accepted: a JSON caller's strict input leaves out what it did not give.
    audience: accepted(audienceField),
    steps: accepted(stepsField),
    window: accepted(windowField),
    daily_cap: integer(),
    audience_size: nullable(integer()),
    left_out: nullable({
      ...object({
        joined_since: integer({
          minimum: 0,
          description: 'Leads that match the audience now but were not among those the person approved.',
        }),
        no_longer_qualify: integer({
          minimum: 0,
          description:
            'Approved leads that no longer match the audience (status, source, archived, no address).',
        }),
      }),
      description:
        'Who the launch a person approved left out of the audience it fixed, and why; null when no approval launched it.',
    }),
    created_at: dateTime,
    updated_at: dateTime,
    launched_at: nullable(dateTime),
    completed_at: nullable(dateTime),
    pause: nullable(
      object({
        reason: {
          ...oneOf(PAUSE_REASONS),
          description: 'person, or deliverability: the brake paused it for hard bounces or complaints.',
        },
        detail: nullable(string({ description: 'The figures that tripped the brake.' })),
        at: nullable(dateTime),
      }),
    ),
  },
  { title: 'Campaign' },
);

const count = integer({ minimum: 0 });

/** Per step: the audience it was for, and what became of its sends. */
export const performanceView = (c: Campaign, figures: StepFigures[]) =>
  c.steps.map((_s, step) => {
    const f = figures.find((x) => x.step === step);
    return {
      step,
      audience: c.audience_size ?? 0,
      sent: f?.sent ?? 0,
      // Accepted by the provider and not reported bounced since (bounce reports reach the inbound-email
      // route); a receiving server that accepts and drops a message silently is not seen.
      delivered: (f?.sent ?? 0) - (f?.bounced ?? 0),
      bounced: f?.bounced ?? 0,
      failed: f?.failed ?? 0,
      skipped: f?.skipped ?? 0,
      replied: f?.replied ?? 0,
      opted_out: f?.opted_out ?? 0,
    };
  });

export const CAMPAIGN_WITH_PERFORMANCE = object({
  data: CAMPAIGN,
  performance: arrayOf(
    object({
      step: count,
      audience: count,
      sent: count,
      delivered: count,
      bounced: count,
      failed: count,
      skipped: count,
      replied: count,
      opted_out: count,
    }),
  ),
});

export const CAMPAIGNS = page(CAMPAIGN, { title: 'Campaigns' });

export const PREVIEW = object({
  campaign_id: uuid,
  lead_id: uuid,
  step: count,
  channel: oneOf(CAMPAIGN_CHANNELS),
  to: nullable(string()),
  subject: nullable(string()),
  body: string(),
});
