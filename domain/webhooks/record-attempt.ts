import type { DataSource } from 'typeorm';
import { returning } from '../kernel/sql';
import { cancelWaitingDeliveries } from './cancel';
import { FAILURES_BEFORE_DISABLE } from './delivery-rules';

export type AttemptRecord = {
  deliveryId: string;
  generation: number;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  responseStatus: number | null;
  errorClass: string | null;
  /** The delivery's state after this attempt. */
  outcome: 'succeeded' | 'retry' | 'exhausted';
  nextAttemptAt: Date | null;
};

export type RecordResult = {
  /** False when the delivery was cancelled (or resent) while the attempt ran: nothing was recorded. */
  recorded: boolean;
  /** Workflows to cancel because this attempt disabled the endpoint. */
  cancelWorkflows: string[];
};

/**
 * Records one attempt and the delivery's new state in one transaction, and keeps the endpoint's count
 * of deliveries failed in a row: EXHAUSTED adds one, SUCCEEDED resets it; the 20th disables the
 * endpoint with a reason, cancels its waiting deliveries and tells the owner.
 */
export async function recordAttempt(db: DataSource, r: AttemptRecord): Promise<RecordResult> {
  return db.transaction(async (m) => {
    const status =
      r.outcome === 'succeeded' ? 'SUCCEEDED' : r.outcome === 'exhausted' ? 'EXHAUSTED' : 'FAILED';
    const [delivery] = await returning<{ endpoint_id: string; workspace_id: string }>(
      m,
      `UPDATE webhook_deliveries SET status = $3, attempts = $4, response_status = $5, next_attempt_at = $6,
              workflow_started_at = coalesce(workflow_started_at, $7),
              delivered_at = CASE WHEN $3 = 'SUCCEEDED' THEN $7::timestamptz + make_interval(secs => $8 / 1000.0) END
        WHERE id = $1 AND generation = $2 AND status IN ('PENDING', 'FAILED')
        RETURNING endpoint_id, workspace_id`,
      [
        r.deliveryId,
        r.generation,
        status,
        r.attempt,
        r.responseStatus,
        r.nextAttemptAt,
        r.startedAt,
        r.durationMs,
      ],
    );
    if (!delivery) return { recorded: false, cancelWorkflows: [] };
    await m.query(
      `INSERT INTO webhook_attempts (delivery_id, number, started_at, duration_ms, response_status, error_class)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (delivery_id, number) DO NOTHING`,
      [r.deliveryId, r.attempt, r.startedAt, r.durationMs, r.responseStatus, r.errorClass],
    );
    if (r.outcome === 'retry') return { recorded: true, cancelWorkflows: [] };
    if (r.outcome === 'succeeded') {
      await m.query(
        `UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id = $1 AND consecutive_failures <> 0`,
        [delivery.endpoint_id],
      );
      return { recorded: true, cancelWorkflows: [] };
    }
    const [endpoint] = await returning<{
      consecutive_failures: number;
      status: string;
      owner_user_id: string | null;
      url: string;
    }>(
      m,
      `UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1 WHERE id = $1
       RETURNING consecutive_failures, status, owner_user_id, url`,
      [delivery.endpoint_id],
    );
    if (
      !endpoint ||
      endpoint.status !== 'ACTIVE' ||
      endpoint.consecutive_failures < FAILURES_BEFORE_DISABLE
    ) {
      return { recorded: true, cancelWorkflows: [] };
    }
    const reason = `${FAILURES_BEFORE_DISABLE} deliveries in a row failed (the last answered ${
      r.responseStatus ?? r.errorClass ?? 'nothing'
    })`;
    await m.query(
      `UPDATE webhook_endpoints SET status = 'DISABLED', disabled_reason = $2, updated_at = clock_timestamp() WHERE id = $1`,
      [delivery.endpoint_id, reason],
    );
    const cancelWorkflows = await cancelWaitingDeliveries(m, delivery.endpoint_id);
    await m.query(
      `INSERT INTO notifications (workspace_id, user_id, kind, message, data) VALUES ($1, $2, 'webhook_endpoint.disabled', $3, $4)`,
      [
        delivery.workspace_id,
        endpoint.owner_user_id,
        `Webhook endpoint ${endpoint.url} was disabled: ${reason}. Fix the receiver, then enable the endpoint again.`,
        JSON.stringify({
          endpoint_id: delivery.endpoint_id,
          reason,
          cancelled_deliveries: cancelWorkflows.length,
        }),
      ],
    );
    return { recorded: true, cancelWorkflows };
  });
}
