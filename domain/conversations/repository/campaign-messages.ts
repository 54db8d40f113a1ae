import type { Data } from '../../kernel/data';
import type { Feedback } from '../entities';

/** The campaign a batch of sends belongs to. */
type Campaign = { id: string; workspace_id: string; channel: string };

/** A campaign message about to leave: its row is written (`queued`) before the provider is called. */
export type CampaignSend = {
  lead_id: string;
  step: number;
  to: string;
  subject: string | null;
  body: string;
};

/** A send's row as written: its id, and the random left part of its Message-ID. */
type Written = { id: string; mail_id: string };

const INTERRUPTED_SEND =
  'interrupted: the worker stopped while this batch was with the provider, so it may or may not have left; it is not sent again, so it is never sent twice';

/**
 * A campaign's messages, as the campaign engine writes them in batches: the rows are keyed by (campaign,
 * lead, step), so no step reaches a lead twice. Times come from the caller (the campaign workflow's
 * clock), never the database's. SQL throughout: each statement handles a whole batch (hundreds of rows)
 * in one round trip, which is what lets a campaign approach a bare SMTP loop.
 */
export const campaignMessagesIn = (data: Data) => ({
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
  leftovers: (campaignId: string): Promise<(CampaignSend & Written)[]> =>
    data.sql(
      `SELECT id, mail_id, lead_id, campaign_step AS step, to_address AS to, subject, body FROM messages
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
   * Writes the batch's send rows (`queued`, or `suppressed` for a blocked address), before anything
   * leaves. A row that exists already (a batch retried after a crash) is not written again and is not
   * answered: that (campaign, lead, step) is never sent twice. Answers, by lead, the rows written.
   */
  write: async (
    c: Campaign,
    sends: (CampaignSend & { status: 'queued' | 'suppressed'; error: string | null })[],
    now: Date,
  ): Promise<Map<string, Written>> => {
    if (sends.length === 0) return new Map();
    const rows = await data.sql<(Written & { lead_id: string })[]>(
      `INSERT INTO messages (workspace_id, lead_id, channel, direction, status, body, to_address, subject,
                             error, marketing, at, started_at, campaign_id, campaign_step)
       SELECT $1, v.lead_id, $2, 'outbound', v.status, v.body, v.to_address, v.subject, v.error, true,
              $11, $11, $3, v.step
         FROM unnest($4::uuid[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
              AS v(lead_id, step, to_address, subject, body, status, error)
       ON CONFLICT (campaign_id, lead_id, campaign_step) WHERE campaign_id IS NOT NULL DO NOTHING
       RETURNING id, mail_id, lead_id`,
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
    return new Map(rows.map(({ lead_id, ...written }) => [lead_id, written]));
  },

  /**
   * Withdraws sends that never left (the campaign was paused mid-batch, or the provider refused them
   * for now): their rows go. Answers each one's lead and step, for the campaign to put back.
   */
  withdrawUnsent: async (messageIds: string[]): Promise<{ lead_id: string; step: number }[]> =>
    messageIds.length === 0
      ? []
      : data.sql<{ lead_id: string; step: number }[]>(
          `WITH gone AS (
             DELETE FROM messages WHERE id = ANY($1::uuid[]) AND status IN ('queued', 'sending')
             RETURNING lead_id, campaign_step)
           SELECT lead_id, campaign_step AS step FROM gone`,
          [messageIds],
        ),

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
});
