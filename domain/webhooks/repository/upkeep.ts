import { slotsParam, type RelaySlots } from '../../kernel/outbox';
import { In } from 'typeorm';
import type { Data } from '../../kernel/data';
import { workspacesByOldest } from '../../kernel/fair-order';
import { purgeBatch } from '../../kernel/retention';
import { DeliveryEntity, type Delivery } from '../entities';
import type { DeliveryToStart } from '../start-delivery';
import { WAITING } from './deliveries';

/** A delivery whose workflow has not started (the partial index `webhook_deliveries_unstarted`). */
const unstartedDelivery = (d: string) => `${d}.workflow_started_at IS NULL AND ${d}.status = 'PENDING'`;

/** Names a generation of a delivery, as the relay remembers what it started. */
export const runKey = (d: Pick<Delivery, 'id' | 'generation'>) => `${d.id}:${d.generation}`;

/** A delivery nothing will move again, and how many attempts its current run made. */
export type Stuck = DeliveryToStart & Pick<Delivery, 'status'> & { rung: number };

/**
 * The background work on deliveries, across workspaces: the relay, the reconciler and the retention
 * purge act on every workspace's rows.
 */
export const deliveryUpkeep = (data: Data) => ({
  /**
   * Deliveries whose workflow has not started, in a fair order across workspaces, but for those
   * started a moment ago (their `runKey`s): each workspace's oldest first, then each one's second,
   * and so on (round robin, workspaces in the order of their oldest waiting row). A workspace that
   * commits 20,000 events takes one row in each turn, not the whole batch, so the others' rows start
   * at once. SQL: the workspaces with waiting rows come from the partial index by workspace
   * (`workspacesByOldest`); each gives at most a batch of its own, numbered, and the numbers
   * interleave them.
   */
  unstarted: (limit: number, startedMeanwhile: string[], slots: RelaySlots) =>
    data.sql<DeliveryToStart[]>(
      `${workspacesByOldest('webhook_deliveries', 'created_at', unstartedDelivery)}
       SELECT d.id, d.generation, d.attempts, d.event_id, d.event_type, d.endpoint_id, d.workspace_id,
              e.url AS endpoint_url, ev.traceparent
         FROM heads h CROSS JOIN LATERAL (
                SELECT d.*, row_number() OVER (ORDER BY d.created_at) AS turn
                  FROM webhook_deliveries d
                 WHERE d.workspace_id = h.workspace_id AND ${unstartedDelivery('d')}
                   AND NOT ((d.id::text || ':' || d.generation) = ANY($2::text[]))
                 ORDER BY d.created_at LIMIT $1) d
         JOIN webhook_endpoints e ON e.id = d.endpoint_id
         JOIN events ev ON ev.id = d.event_id
        ORDER BY d.turn, h.oldest, d.created_at LIMIT $1`,
      [limit, startedMeanwhile, slotsParam(slots)],
    ),

  /**
   * Of these run keys (`runKey`), those whose delivery still waits for its first attempt's record:
   * started by the relay, not yet under way. SQL: by primary key, the generation compared in the row.
   */
  stillStarting: async (keys: string[]): Promise<string[]> =>
    (
      await data.sql<{ key: string }[]>(
        `SELECT d.id::text || ':' || d.generation AS key FROM webhook_deliveries d
          WHERE d.id = ANY($1::uuid[]) AND ${unstartedDelivery('d')}
            AND (d.id::text || ':' || d.generation) = ANY($2::text[])`,
        [keys.map((k) => k.slice(0, k.indexOf(':'))), keys],
      )
    ).map((r) => r.key),

  /**
   * A FAILED delivery well past its next attempt, or a PENDING one long unstarted, with the attempts
   * its current run made. SQL: a count per row (a correlated aggregate) and times by the database's clock.
   */
  stuck: (graceMinutes: number, limit: number) =>
    data.sql<Stuck[]>(
      `SELECT d.id, d.generation, d.attempts, d.event_id, d.event_type, d.endpoint_id, d.workspace_id, d.status,
              (SELECT url FROM webhook_endpoints e WHERE e.id = d.endpoint_id) AS endpoint_url,
              (SELECT count(*)::int FROM webhook_attempts a
                WHERE a.delivery_id = d.id AND a.started_at >= d.workflow_started_at) AS rung
         FROM webhook_deliveries d
        WHERE (d.status = 'FAILED' AND d.next_attempt_at < clock_timestamp() - make_interval(mins => $1))
           OR (d.status = 'PENDING' AND d.created_at < clock_timestamp() - make_interval(mins => $1))
        ORDER BY d.created_at LIMIT $2`,
      [graceMinutes, limit],
    ),

  /**
   * Destroys the secrets whose rotation overlap has ended (they already sign nothing: the attempt
   * reads their end), answering the endpoints they belonged to. SQL: one guarded UPDATE across
   * workspaces, wrapped in a WITH so the driver answers its rows.
   */
  destroyRetiredSecrets: (): Promise<{ id: string; workspace_id: string }[]> =>
    data.sql(
      `WITH retired AS (
         UPDATE webhook_endpoints SET previous_secret_ciphertext = NULL, previous_secret_expires_at = NULL
          WHERE previous_secret_expires_at <= clock_timestamp()
          RETURNING id, workspace_id)
       SELECT id, workspace_id FROM retired`,
    ),

  /** Ends a delivery whose ladder was spent, unless it moved meanwhile; answers whether it did. */
  end: async (d: Pick<Delivery, 'id' | 'generation'>): Promise<boolean> => {
    const ended = await data
      .scoped(DeliveryEntity)
      .update(
        { id: d.id, generation: d.generation, status: In(WAITING) },
        { status: 'EXHAUSTED', next_attempt_at: null },
      );
    return ended.length > 0;
  },

  /**
   * Deletes up to `limit` events older than `days` whose deliveries have all ended (theirs go with
   * them), answering how many. SQL: a bounded batch so no statement runs long, guarded by a NOT EXISTS
   * over the deliveries.
   */
  purgeEvents: (days: number, limit: number): Promise<number> =>
    purgeBatch(
      data,
      `DELETE FROM events WHERE id IN (SELECT e.id FROM events e
        WHERE e.created_at < clock_timestamp() - make_interval(days => $1)
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                           WHERE d.event_id = e.id AND d.status IN ('PENDING', 'FAILED'))
        LIMIT $2)`,
      [days, limit],
    ),
});
