import type { Data } from '../../kernel/data';
import type { Sample } from '../../kernel/effect';
import { notFound } from '../../kernel/errors';
import { relayNotice } from '../../kernel/events';
import { CAMPAIGN_OUTBOX } from '../outboxes';
import {
  CampaignEntity,
  type Audience,
  type Campaign,
  type CampaignStatus,
  type LeftOut,
  type PauseReason,
} from '../entities';

const now = () => 'clock_timestamp()';

/** Per step of a campaign, what became of its sends. */
export type StepFigures = {
  step: number;
  /** Accepted by the provider (some may have bounced since). */
  sent: number;
  bounced: number;
  failed: number;
  skipped: number;
  replied: number;
  opted_out: number;
};

/** A campaign's sends so far (handed to the provider), and the authenticated feedback about them. */
export type FeedbackFigures = { sends: number; hard_bounces: number; complaints: number };

/** The leads an audience matches ($1 workspace, $2 channel, $3 statuses, $4 sources, $5 created since). */
const AUDIENCE_FILTER = `l.workspace_id = $1 AND l.archived_at IS NULL
  AND (CASE WHEN $2 = 'email' THEN l.email ELSE l.phone END) IS NOT NULL
  AND ($3::text[] IS NULL OR l.status = ANY($3))
  AND ($4::text[] IS NULL OR l.source = ANY($4))
  AND ($5::timestamptz IS NULL OR l.created_at >= $5)`;

const audienceParams = (c: Campaign) => {
  const a: Audience = c.audience;
  return [c.workspace_id, c.channel, a.statuses ?? null, a.sources ?? null, a.created_since ?? null];
};

/** A workspace's campaigns. */
export const campaignsIn = (data: Data) => {
  const rows = data.scoped(CampaignEntity);
  return {
    create: (
      values: Pick<Campaign, 'name' | 'channel' | 'audience' | 'steps' | 'send_window' | 'daily_cap'>,
    ) => rows.insert({ ...values, status: 'DRAFT' }),

    find: (id: string) => rows.findOne({ id }),

    /** The campaign, held (`FOR UPDATE`) until the transaction ends: its status decides what may follow. */
    lock: (id: string) => rows.findOne({ id }, { lock: true }),

    change: async (id: string, values: Partial<Campaign>): Promise<Campaign> =>
      (await rows.update({ id }, { ...values, updated_at: now }))[0]!,

    /** PAUSED from now, saying who paused it and why; a resume clears it. */
    pause: async (id: string, reason: PauseReason, detail: string | null): Promise<Campaign> =>
      (
        await rows.update(
          { id },
          { status: 'PAUSED', paused_reason: reason, pause_detail: detail, paused_at: now, updated_at: now },
        )
      )[0]!,

    /** RUNNING again after a pause. */
    resume: async (id: string): Promise<Campaign> =>
      (
        await rows.update(
          { id },
          { status: 'RUNNING', paused_reason: null, pause_detail: null, paused_at: null, updated_at: now },
        )
      )[0]!,

    /**
     * What the deliverability brake judges: the campaign's sends (every message handed to the
     * provider, or in its hands) and its proven hard bounces and complaints.
     */
    feedbackFigures: async (campaignId: string): Promise<FeedbackFigures> =>
      (
        await data.sql<FeedbackFigures[]>(
          `SELECT count(*) FILTER (WHERE status IN ('sending', 'sent', 'bounced', 'failed'))::int AS sends,
                  count(*) FILTER (WHERE feedback = 'hard_bounce')::int AS hard_bounces,
                  count(*) FILTER (WHERE feedback = 'complaint')::int AS complaints
             FROM messages WHERE campaign_id = $1 AND ($2::uuid IS NULL OR workspace_id = $2)`,
          [campaignId, data.workspaceId ?? null],
        )
      )[0]!,

    /**
     * RUNNING from now, with its audience's size and who an approval left out of it; the relay, woken at
     * commit, starts its workflow.
     */
    launch: async (id: string, audienceSize: number, leftOut: LeftOut | null): Promise<Campaign> => {
      const [c] = await rows.update(
        { id },
        {
          status: 'RUNNING',
          audience_size: audienceSize,
          left_out: leftOut,
          launched_at: now,
          updated_at: now,
        },
      );
      // PostgreSQL delivers a NOTIFY at commit, never for a rollback.
      await data.sql(...relayNotice(CAMPAIGN_OUTBOX, c!.workspace_id));
      return c!;
    },

    list: (filter: { status?: CampaignStatus; limit: number }) =>
      rows.find(filter.status ? { status: filter.status } : {}, {
        order: { created_at: 'DESC', id: 'DESC' },
        take: filter.limit,
      }),

    /**
     * Who the audience matches now, in audience order: every lead's id, and the name and address of the
     * first `sample` (what an approver reads). SQL: the same filter as `fixAudience`, one pass, with
     * contact details read only for the first few.
     */
    audienceMembers: async (c: Campaign, sample: number): Promise<{ ids: string[]; sample: Sample[] }> => {
      const rows = await data.sql<{ id: string; name: string | null; address: string | null }[]>(
        `SELECT l.id,
                CASE WHEN n <= $6 THEN nullif(concat_ws(' ', l.first_name, l.last_name), '') END AS name,
                CASE WHEN n <= $6 THEN (CASE WHEN $2 = 'email' THEN l.email ELSE l.phone END) END AS address
           FROM (SELECT l.*, row_number() OVER (ORDER BY l.created_at, l.id) AS n
                   FROM leads l WHERE ${AUDIENCE_FILTER}) l
          ORDER BY l.n`,
        [...audienceParams(c), sample],
      );
      return {
        ids: rows.map((r) => r.id),
        sample: rows.slice(0, sample).map((r) => ({ name: r.name, address: r.address ?? '' })),
      };
    },

    /**
     * Fixes the audience at launch: every live lead the filter matches that has an address on the
     * channel becomes a recipient, due at once, in the order they arrived; with `approved`, only those
     * of them a person approved. Answers how many, and how many the filter matches now that were not
     * approved (`joined`). SQL: one INSERT ... SELECT over the filter, however large the audience (no
     * rows through Node); the count of joiners reads the leads as the statement began.
     */
    fixAudience: async (c: Campaign, approved?: string[]): Promise<{ fixed: number; joined: number }> => {
      const rows = await data.sql<{ fixed: number; joined: number }[]>(
        `WITH added AS (
           INSERT INTO campaign_recipients (campaign_id, lead_id, workspace_id, position, due_at)
           SELECT $6, l.id, l.workspace_id, row_number() OVER (ORDER BY l.created_at, l.id), clock_timestamp()
             FROM leads l
            WHERE ${AUDIENCE_FILTER} AND ($7::uuid[] IS NULL OR l.id = ANY($7::uuid[]))
           RETURNING 1)
         SELECT (SELECT count(*) FROM added)::int AS fixed,
                (SELECT count(*) FROM leads l
                  WHERE $7::uuid[] IS NOT NULL AND ${AUDIENCE_FILTER} AND NOT (l.id = ANY($7::uuid[])))::int AS joined`,
        [...audienceParams(c), c.id, approved ?? null],
      );
      return rows[0]!;
    },

    /**
     * What each step's sends became, and who replied or opted out after a step reached them (before
     * the next one did). SQL: aggregates over the campaign's messages and its leads' later activity.
     */
    figures: (c: Campaign): Promise<StepFigures[]> =>
      data.sql<StepFigures[]>(
        `SELECT s.campaign_step AS step,
                count(*) FILTER (WHERE s.status IN ('sent', 'bounced'))::int AS sent,
                count(*) FILTER (WHERE s.status = 'bounced')::int AS bounced,
                count(*) FILTER (WHERE s.status = 'failed')::int AS failed,
                count(*) FILTER (WHERE s.status = 'suppressed')::int AS skipped,
                count(*) FILTER (WHERE EXISTS (
                  SELECT 1 FROM messages i WHERE i.lead_id = s.lead_id AND i.direction = 'inbound'
                     AND i.authenticity IS DISTINCT FROM 'unverified'
                     AND i.at >= s.at AND i.at < coalesce(n.at, 'infinity')))::int AS replied,
                count(*) FILTER (WHERE EXISTS (
                  SELECT 1 FROM suppressions o WHERE o.workspace_id = s.workspace_id
                     AND o.address = s.to_address AND o.channel IN ('ALL', s.channel)
                     AND o.reason = 'unsubscribed'
                     AND o.created_at >= s.at AND o.created_at < coalesce(n.at, 'infinity')))::int AS opted_out
           FROM messages s
           LEFT JOIN messages n ON n.campaign_id = s.campaign_id AND n.lead_id = s.lead_id
                                AND n.campaign_step = s.campaign_step + 1
          WHERE s.campaign_id = $1 AND s.workspace_id = $2
          GROUP BY s.campaign_step ORDER BY s.campaign_step`,
        [c.id, c.workspace_id],
      ),
  };
};

/** A campaign of this workspace, or "not found". */
export async function campaignOf(
  repo: ReturnType<typeof campaignsIn>,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<Campaign> {
  const c = opts.lock ? await repo.lock(id) : await repo.find(id);
  if (!c) throw notFound('campaign');
  return c;
}
