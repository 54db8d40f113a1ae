import { In, Not } from 'typeorm';
import type { Data } from '../../kernel/data';
import type { EventRow } from '../../kernel/entities';
import { TEST_EVENT_TYPE } from '../../kernel/event-catalogue';
import { emitEvent, relayNotice } from '../../kernel/events';
import { DELIVERY_OUTBOX, fanOutTo } from '../fan-out';
import type { DeliveryRun } from '../../kernel/operation';
import { AttemptEntity, DeliveryEntity, type Attempt, type Delivery, type DeliveryStatus } from '../entities';

/** Queued, or retrying: what an endpoint's change may cancel and an attempt may still move. */
export const WAITING: DeliveryStatus[] = ['PENDING', 'FAILED'];

/** A delivery as the list shows it, with the bytes its event sends. */
export type ListedDelivery = Pick<
  Delivery,
  | 'id'
  | 'event_id'
  | 'event_type'
  | 'status'
  | 'attempts'
  | 'response_status'
  | 'next_attempt_at'
  | 'delivered_at'
  | 'created_at'
  | 'endpoint_id'
> & { envelope: NonNullable<EventRow['envelope']> };

export type DeliveryFilter = { type?: string; status?: string; limit: number; endpointId?: string };

/** A requeued delivery: its new generation is a workflow of its own. */
export type Requeued = Pick<Delivery, 'id' | 'workspace_id' | 'generation'>;

/** A workspace's webhook deliveries. */
export const deliveriesIn = (data: Data) => {
  const rows = data.scoped(DeliveryEntity);
  /**
   * SQL: a requeue is one UPDATE whose guard reads the endpoint (still ACTIVE) in the same statement,
   * a correlated EXISTS; a separate read would let the endpoint be disabled in between. Wrapped in a
   * WITH so the driver answers the rows (a bare UPDATE answers [rows, count]).
   */
  const requeue = async (where: string, params: unknown[]): Promise<Requeued[]> => {
    const n = params.length;
    const requeued = await data.sql<Requeued[]>(
      `WITH requeued AS (
         UPDATE webhook_deliveries d SET status = 'PENDING', generation = generation + 1, workflow_started_at = NULL,
                next_attempt_at = NULL
          WHERE ${where} AND d.status IN ('EXHAUSTED', 'CANCELLED') AND ($${n + 1}::uuid IS NULL OR d.workspace_id = $${n + 1})
            AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = d.endpoint_id AND e.status = 'ACTIVE')
          RETURNING id, workspace_id, generation)
       SELECT * FROM requeued`,
      [...params, data.workspaceId ?? null],
    );
    // One delivery's or one endpoint's: one workspace.
    if (requeued.length > 0) await data.sql(...relayNotice(DELIVERY_OUTBOX, requeued[0]!.workspace_id));
    return requeued;
  };
  return {
    /**
     * Newest first. SQL: each record carries its event's envelope, joined in the same round trip
     * (GET /events is a door's read).
     */
    list: (f: DeliveryFilter) =>
      data.sql<ListedDelivery[]>(
        `SELECT d.id, d.event_id, d.event_type, d.status, d.attempts, d.response_status, d.next_attempt_at,
                d.delivered_at, d.created_at, ev.envelope, d.endpoint_id
           FROM webhook_deliveries d JOIN events ev ON ev.id = d.event_id
          WHERE d.workspace_id = $1 AND ($2::text IS NULL OR d.event_type = $2) AND ($3::text IS NULL OR d.status = $3)
            AND ($5::uuid IS NULL OR d.endpoint_id = $5)
          ORDER BY d.created_at DESC, d.id DESC LIMIT $4`,
        [data.workspaceId, f.type ?? null, f.status ?? null, f.limit, f.endpointId ?? null],
      ),
    /** Every attempt of these deliveries (which the caller read from its workspace), in order. */
    attemptsOf: async (deliveryIds: string[]): Promise<Attempt[]> =>
      deliveryIds.length === 0
        ? []
        : data
            .global(AttemptEntity)
            .find({ delivery_id: In(deliveryIds) }, { order: { delivery_id: 'ASC', number: 'ASC' } }),
    lock: (id: string) => rows.findOne({ id }, { lock: true }),
    /**
     * Marks an endpoint's waiting deliveries CANCELLED, except those of the event types it still
     * receives, and answers their runs, whose workflows to cancel after commit. The rows are the truth: a
     * workflow that wakes before its cancellation lands finds its delivery CANCELLED and sends nothing.
     */
    cancelWaiting: async (endpointId: string, keep?: string[]): Promise<DeliveryRun[]> => {
      const cancelled = await rows.update(
        { endpoint_id: endpointId, status: In(WAITING), ...(keep && { event_type: Not(In(keep)) }) },
        { status: 'CANCELLED', next_attempt_at: null },
      );
      return cancelled.map((d) => ({ id: d.id, generation: d.generation }));
    },
    /** One delivery no longer wanted (its endpoint was switched off or unsubscribed meanwhile). */
    cancel: (id: string) =>
      rows.update({ id, status: In(WAITING) }, { status: 'CANCELLED', next_attempt_at: null }),
    /** Requeues one delivery that gave up or was cancelled. */
    resend: (id: string) => requeue('d.id = $1', [id]),
    /** Requeues an endpoint's deliveries that gave up or were cancelled since a time. */
    recover: (endpointId: string, since: Date) =>
      requeue('d.endpoint_id = $1 AND d.created_at >= $2', [endpointId, since]),
    /**
     * Queues `endpoint.test` to one endpoint through the outbox (the runner's emit would fan it out to
     * every subscriber), answering its event id and its one delivery.
     */
    queueTest: async (workspaceId: string, endpointId: string) => {
      const eventId = await emitEvent(
        data.manager,
        fanOutTo(endpointId),
        workspaceId,
        TEST_EVENT_TYPE,
        { type: 'endpoint', id: endpointId },
        { endpoint_id: endpointId },
      );
      return { eventId, delivery: (await rows.findOne({ event_id: eventId }))! };
    },
  };
};
