import type { EntityManager } from 'typeorm';
import { returning } from '../kernel/sql';
import { deliveryWorkflowId } from './workflow-ids';

/**
 * Marks an endpoint's waiting deliveries (queued or retrying) CANCELLED, optionally only those of
 * some event types, and returns the workflow ids to cancel after commit. The rows are the truth: a
 * workflow that wakes before its cancellation lands finds its delivery CANCELLED and sends nothing.
 */
export async function cancelWaitingDeliveries(
  m: Pick<EntityManager, 'query'>,
  endpointId: string,
  onlyTypes?: string[],
): Promise<string[]> {
  const rows = await returning<{ id: string; generation: number }>(
    m,
    `UPDATE webhook_deliveries SET status = 'CANCELLED', next_attempt_at = NULL
      WHERE endpoint_id = $1 AND status IN ('PENDING', 'FAILED') AND ($2::text[] IS NULL OR event_type = ANY($2))
      RETURNING id, generation`,
    [endpointId, onlyTypes ?? null],
  );
  return rows.map((r) => deliveryWorkflowId(r.id, r.generation));
}
