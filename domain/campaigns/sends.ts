import type { Data } from '../kernel/data';
import type { Feedback } from '../conversations/entities';
import type { Campaign } from './entities';

/** A recipient due for its next step, with what sending needs to know about the lead. */
export type DueRecipient = {
  lead_id: string;
  next_step: number;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  /** Why the lead leaves the sequence instead (replied, booked, closed, archived), if it does. */
  leaves: string | null;
  /** Why the address may not be written to (opted out, blocked), if it may not. */
  blocked: string | null;
};

/** A campaign message about to leave: its row is written (`queued`) before the provider is called. */
export type CampaignSend = {
  lead_id: string;
  step: number;
  to: string;
  subject: string | null;
  body: string;
};

const INTERRUPTED_SEND =
  'interrupted: the worker stopped while this batch was with the provider, so it may or may not have left; it is not sent again, so it is never sent twice';

/**
 * Times come from the caller (the campaign workflow's clock), never the database's, so a campaign's
 * delays, window and cap are the workflow's own: replayable, and testable with time skipped.
 *
 * The campaign engine's rows, across one campaign: recipients due, the send rows keyed by
 * (campaign, lead, step), and their outcomes. SQL throughout: each statement handles a whole batch
 * (hundreds of rows) in one round trip, which is what lets a campaign approach a bare SMTP loop.
 */
export const campaignSendsIn = (data: Data) => ({
  /**
   * Sends a crashed batch left `sending` (a killed worker had handed them over): failed, visibly, never
   * sent again. Only one batch of a campaign runs at a time (its workflow runs them in turn), so none is
   * in flight now. (Rows it left `queued` were never handed over: the next batch sends them.)
   */
  failInterrupted: (campaignId: string) =>
    data.sql(
      `UPDATE messages SET status = 'failed', error = $2
        WHERE campaign_id = $1 AND status = 'sending'`,
      [campaignId, INTERRUPTED_SEND],
    ),

  /** Rows a crashed batch wrote but never handed over, to send now (their recipients already moved on). */
  leftovers: (campaignId: string): Promise<(CampaignSend & { id: string })[]> =>
    data.sql(
      `SELECT id, lead_id, campaign_step AS step, to_address AS to, subject, body FROM messages
        WHERE campaign_id = $1 AND status = 'queued' ORDER BY at, id`,
      [campaignId],
    ),

  /**
   * The group about to be handed over, marked `sending` and committed first: a crash from here on
   * leaves exactly these rows as the ones that may have left.
   */
  markSending: (ids: string[]) =>
    data.sql(`UPDATE messages SET status = 'sending' WHERE id = ANY($1::uuid[]) AND status = 'queued'`, [
      ids,
    ]),

  /** Messages the campaign handed over since an instant (its daily cap counts them). */
  sentSince: async (campaignId: string, since: Date): Promise<number> =>
    (
      await data.sql<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM messages
          WHERE campaign_id = $1 AND status <> 'suppressed' AND at >= $2`,
        [campaignId, since],
      )
    )[0]!.n,

  /**
   * Recipients due now, in audience order, locked for this batch, with the lead's details, whether it
   * left the sequence (replied since launch, booked or closed, archived) and whether its address is
   * blocked on the channel. SQL: a join with correlated checks, one round trip per batch.
   */
  due: (c: Campaign, limit: number, now: Date): Promise<DueRecipient[]> =>
    data.sql<DueRecipient[]>(
      `SELECT r.lead_id, r.next_step, l.first_name, l.last_name, l.email, l.phone,
              CASE WHEN l.archived_at IS NOT NULL THEN 'archived'
                   WHEN l.status IN ('BOOKED', 'WON', 'LOST') THEN lower(l.status)
                   WHEN EXISTS (SELECT 1 FROM messages i WHERE i.lead_id = l.id AND i.direction = 'inbound'
                                   AND i.at >= $3 AND i.authenticity IS DISTINCT FROM 'unverified')
                     THEN 'replied'
              END AS leaves,
              (SELECT CASE WHEN s.reason = 'unsubscribed' THEN 'opted out' ELSE 'blocked: ' || s.reason END
                 FROM suppressions s
                WHERE s.workspace_id = l.workspace_id AND s.channel IN ('ALL', $4)
                  AND s.address = CASE WHEN $4 = 'email' THEN l.email ELSE l.phone END
                LIMIT 1) AS blocked
         FROM campaign_recipients r JOIN leads l ON l.id = r.lead_id
        WHERE r.campaign_id = $1 AND r.status = 'ACTIVE' AND r.due_at <= $5
        ORDER BY r.due_at, r.position
        LIMIT $2
        FOR UPDATE OF r SKIP LOCKED`,
      [c.id, limit, c.launched_at, c.channel, now],
    ),

  /** Recipients that leave the sequence, each with its reason. */
  leave: (campaignId: string, leavers: { lead_id: string; reason: string }[]) =>
    leavers.length === 0
      ? Promise.resolve()
      : data.sql(
          `UPDATE campaign_recipients r SET status = 'LEFT', left_reason = v.reason
             FROM unnest($2::uuid[], $3::text[]) AS v(lead_id, reason)
            WHERE r.campaign_id = $1 AND r.lead_id = v.lead_id`,
          [campaignId, leavers.map((l) => l.lead_id), leavers.map((l) => l.reason)],
        ),

  /**
   * Writes the batch's send rows (`queued`, or `suppressed` for a blocked address), before anything
   * leaves. A row that exists already (a batch retried after a crash) is not written again and is not
   * answered: that (campaign, lead, step) is never sent twice. Answers the ids of the rows written.
   */
  write: async (
    c: Campaign,
    sends: (CampaignSend & { status: 'queued' | 'suppressed'; error: string | null })[],
    now: Date,
  ): Promise<Map<string, string>> => {
    if (sends.length === 0) return new Map();
    const rows = await data.sql<{ id: string; lead_id: string }[]>(
      `INSERT INTO messages (workspace_id, lead_id, channel, direction, status, body, to_address, subject,
                             error, marketing, at, started_at, campaign_id, campaign_step)
       SELECT $1, v.lead_id, $2, 'outbound', v.status, v.body, v.to_address, v.subject, v.error, true,
              $11, $11, $3, v.step
         FROM unnest($4::uuid[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
              AS v(lead_id, step, to_address, subject, body, status, error)
       ON CONFLICT (campaign_id, lead_id, campaign_step) WHERE campaign_id IS NOT NULL DO NOTHING
       RETURNING id, lead_id`,
      [
        c.workspace_id,
        c.channel,
        c.id,
        sends.map((s) => s.lead_id),
        sends.map((s) => s.step),
        sends.map((s) => s.to),
        sends.map((s) => s.subject),
        sends.map((s) => s.body),
        sends.map((s) => s.status),
        sends.map((s) => s.error),
        now,
      ],
    );
    return new Map(rows.map((r) => [r.lead_id, r.id]));
  },

  /**
   * Moves the batch's recipients on: the next step falls due after its delay; after the last, DONE.
   * SQL: one UPDATE from the batch's values.
   */
  advance: (c: Campaign, leadIds: string[], now: Date) => {
    const delays = c.steps.map((s) => s.delay_hours);
    return leadIds.length === 0
      ? Promise.resolve()
      : data.sql(
          `UPDATE campaign_recipients r
              SET next_step = r.next_step + 1,
                  status = CASE WHEN r.next_step + 1 >= $3 THEN 'DONE' ELSE 'ACTIVE' END,
                  due_at = CASE WHEN r.next_step + 1 >= $3 THEN r.due_at
                                ELSE $5::timestamptz + make_interval(hours => ($4::int[])[r.next_step + 2]) END
            WHERE r.campaign_id = $1 AND r.lead_id = ANY($2::uuid[])`,
          [c.id, leadIds, c.steps.length, delays, now],
        );
  },

  /**
   * Puts back sends that never left (the campaign was paused mid-batch, or the provider refused them
   * for now): their rows go and their recipients are due again at `dueAt`, at the same step.
   */
  putBack: async (campaignId: string, messageIds: string[], dueAt: Date) => {
    if (messageIds.length === 0) return;
    await data.sql(
      `WITH gone AS (
         DELETE FROM messages WHERE id = ANY($2::uuid[]) AND status IN ('queued', 'sending')
         RETURNING lead_id, campaign_step)
       UPDATE campaign_recipients r SET status = 'ACTIVE', next_step = g.campaign_step, due_at = $3
         FROM gone g WHERE r.campaign_id = $1 AND r.lead_id = g.lead_id`,
      [campaignId, messageIds, dueAt],
    );
  },

  /**
   * Records the provider's answers for the batch, and a refusal that was a hard bounce. A bounce
   * report that came back before this (the message was still `sending`) keeps it `bounced`.
   * SQL: one UPDATE from the batch's values.
   */
  settle: (
    outcomes: {
      id: string;
      status: string;
      error: string | null;
      provider_id: string | null;
      feedback?: Feedback;
    }[],
  ) =>
    outcomes.length === 0
      ? Promise.resolve()
      : data.sql(
          `UPDATE messages m SET status = CASE WHEN m.status = 'bounced' THEN m.status ELSE v.status END,
                  error = CASE WHEN m.status = 'bounced' THEN m.error ELSE v.error END,
                  provider_message_id = v.provider_id,
                  sent_at = CASE WHEN v.status = 'sent' THEN clock_timestamp() END,
                  feedback = coalesce(m.feedback, v.feedback)
             FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[])
                  AS v(id, status, error, provider_id, feedback)
            WHERE m.id = v.id`,
          [
            outcomes.map((o) => o.id),
            outcomes.map((o) => o.status),
            outcomes.map((o) => o.error),
            outcomes.map((o) => o.provider_id),
            outcomes.map((o) => o.feedback ?? null),
          ],
        ),

  /** When the next recipient falls due, or null when none is left. */
  nextDue: async (campaignId: string): Promise<Date | null> =>
    (
      await data.sql<{ at: Date | null }[]>(
        `SELECT min(due_at) AS at FROM campaign_recipients WHERE campaign_id = $1 AND status = 'ACTIVE'`,
        [campaignId],
      )
    )[0]!.at,
});
