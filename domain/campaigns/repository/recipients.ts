import type { Data } from '../../kernel/data';
import type { Campaign } from '../entities';

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

/**
 * Times come from the caller (the campaign workflow's clock), never the database's, so a campaign's
 * delays, window and cap are the workflow's own: replayable, and testable with time skipped.
 *
 * The campaign engine's recipients, across one campaign: who is due (read with the lead's details, its
 * replies and its suppressions in one statement: a read, never a write, of those areas' tables), who
 * leaves, who moves on. The send rows are the conversations area's messages
 * (`campaignMessagesIn`). SQL throughout: each statement handles a whole batch
 * (hundreds of rows) in one round trip, which is what lets a campaign approach a bare SMTP loop.
 */
export const campaignSendsIn = (data: Data) => ({
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
   * Puts recipients back at the step whose send never left (the campaign was paused mid-batch, or the
   * provider refused it for now): due again at `dueAt`.
   */
  dueAgain: async (campaignId: string, withdrawn: { lead_id: string; step: number }[], dueAt: Date) => {
    if (withdrawn.length === 0) return;
    await data.sql(
      `UPDATE campaign_recipients r SET status = 'ACTIVE', next_step = v.step, due_at = $4
         FROM unnest($2::uuid[], $3::int[]) AS v(lead_id, step)
        WHERE r.campaign_id = $1 AND r.lead_id = v.lead_id`,
      [campaignId, withdrawn.map((w) => w.lead_id), withdrawn.map((w) => w.step), dueAt],
    );
  },

  /** When the next recipient falls due, or null when none is left. */
  nextDue: async (campaignId: string): Promise<Date | null> =>
    (
      await data.sql<{ at: Date | null }[]>(
        `SELECT min(due_at) AS at FROM campaign_recipients WHERE campaign_id = $1 AND status = 'ACTIVE'`,
        [campaignId],
      )
    )[0]!.at,
});
