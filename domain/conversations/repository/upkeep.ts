import { slotsParam, type RelaySlots } from '../../kernel/outbox';
import type { Data } from '../../kernel/data';
import { workspacesByOldest } from '../../kernel/fair-order';
import { purgeBatch } from '../../kernel/retention';
import type { Message } from '../entities';

/** An outbound message whose sending workflow the relay must start. */
export type MessageToStart = Pick<Message, 'id' | 'workspace_id' | 'lead_id' | 'channel' | 'traceparent'>;

/** An outbound message whose workflow has not started (the partial index `messages_unstarted`). */
const unstartedMessage = (m: string) => `${m}.direction = 'outbound' AND ${m}.started_at IS NULL`;

/** The background work on messages, across workspaces: the relay. */
export const messageUpkeep = (data: Data) => ({
  /**
   * Deletes up to `limit` mail reports older than `days` (every workspace's): the inbound route stores
   * every report, forged ones included, so the table is bounded by time as the audit log is.
   */
  purgeReports: (days: number, limit: number) =>
    purgeBatch(
      data,
      `DELETE FROM mail_reports WHERE id IN (SELECT id FROM mail_reports
        WHERE received_at < clock_timestamp() - make_interval(days => $1) ORDER BY received_at LIMIT $2)`,
      [days, limit],
    ),

  /**
   * Outbound messages whose workflow has not started, but for those just started, in a fair order
   * across workspaces: each workspace's oldest first, then each one's second (as webhook deliveries).
   * SQL: the partial index of unstarted outbound rows by workspace gives each workspace's head
   * (`workspacesByOldest`).
   */
  unstarted: (limit: number, startedMeanwhile: string[], slots: RelaySlots): Promise<MessageToStart[]> =>
    data.sql<MessageToStart[]>(
      `${workspacesByOldest('messages', 'at', unstartedMessage)}
       SELECT m.id, m.workspace_id, m.lead_id, m.channel, m.traceparent
         FROM heads h CROSS JOIN LATERAL (
                SELECT m.id, m.workspace_id, m.lead_id, m.channel, m.traceparent, m.at,
                       row_number() OVER (ORDER BY m.at) AS turn
                  FROM messages m
                 WHERE m.workspace_id = h.workspace_id AND ${unstartedMessage('m')}
                   AND NOT (m.id = ANY($2::uuid[]))
                 ORDER BY m.at LIMIT $1) m
        ORDER BY m.turn, h.oldest, m.at LIMIT $1`,
      [limit, startedMeanwhile, slotsParam(slots)],
    ),
  /** Of these messages, those whose workflow has not yet marked them started. */
  stillStarting: async (ids: string[]): Promise<string[]> =>
    (
      await data.sql<{ id: string }[]>(
        `SELECT id FROM messages WHERE id = ANY($1::uuid[]) AND started_at IS NULL`,
        [ids],
      )
    ).map((r) => r.id),
});
