import type { DataSource } from 'typeorm';
import * as yup from 'yup';
import { authorize, type Actor } from '../actor';
import { operationAudit, writeAudit } from '../audit';
import { DomainError, notFound } from '../errors';
import { DELIVERIES_CHANNEL } from '../events/emit';
import type { Requirement } from '../policy';
import { returning } from '../sql';
import { limitParam, validate } from '../validate';

export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED', 'EXHAUSTED', 'CANCELLED'] as const;
const READ: Requirement = { scope: 'business:read', minRole: 'viewer' };
const MANAGE: Requirement = { scope: 'business:write', minRole: 'admin' };

export const deliveryParamsSchema = yup
  .object({
    type: yup
      .string()
      .max(100, 'type must be at most 100 characters')
      .matches(/^[a-z_]+(\.[a-z_]+)+$/, 'type must be an event type, for example lead.created'),
    status: yup
      .string()
      .oneOf([...DELIVERY_STATUSES], `status must be one of ${DELIVERY_STATUSES.join(', ')}`),
    limit: limitParam(100),
  })
  .strict(true)
  .noUnknown(true, (p: { unknown: string }) => `${p.unknown} is not a parameter of this list`);

type DeliveryRow = {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  response_status: number | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
  envelope: string;
  endpoint_id: string;
};

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The spec's delivery record: never the endpoint URL or secret. */
const deliveryView = (d: DeliveryRow) => ({
  id: d.id,
  event_id: d.event_id,
  type: d.event_type,
  status: d.status,
  attempts: d.attempts,
  response_status: d.response_status,
  next_attempt_at: iso(d.next_attempt_at),
  delivered_at: iso(d.delivered_at),
  created_at: d.created_at.toISOString(),
  payload: JSON.parse(d.envelope) as unknown,
});

/** Deliveries of a workspace, newest first; the admin view adds the endpoint and every attempt. */
export async function listDeliveries(
  db: DataSource,
  actor: Actor,
  workspaceId: string,
  params: unknown,
  opts: { withAttempts?: boolean } = {},
) {
  authorize(actor, READ);
  const p = validate(deliveryParamsSchema, params, { strict: true });
  const rows = await db.query<DeliveryRow[]>(
    `SELECT d.id, d.event_id, d.event_type, d.status, d.attempts, d.response_status, d.next_attempt_at,
            d.delivered_at, d.created_at, ev.envelope, d.endpoint_id
       FROM webhook_deliveries d JOIN events ev ON ev.id = d.event_id
      WHERE d.workspace_id = $1 AND ($2::text IS NULL OR d.event_type = $2) AND ($3::text IS NULL OR d.status = $3)
      ORDER BY d.created_at DESC, d.id DESC LIMIT $4`,
    [workspaceId, p.type ?? null, p.status ?? null, p.limit === undefined ? 25 : Number(p.limit)],
  );
  const data = rows.map(deliveryView);
  if (!opts.withAttempts) return { data, count: data.length };
  const attempts = await db.query<
    {
      delivery_id: string;
      number: number;
      started_at: Date;
      duration_ms: number;
      response_status: number | null;
      error_class: string | null;
    }[]
  >(
    `SELECT delivery_id, number, started_at, duration_ms, response_status, error_class FROM webhook_attempts
      WHERE delivery_id = ANY($1::uuid[]) ORDER BY delivery_id, number`,
    [rows.map((r) => r.id)],
  );
  return {
    data: data.map((d, i) => ({
      ...d,
      endpoint_id: rows[i]!.endpoint_id,
      attempt_log: attempts
        .filter((a) => a.delivery_id === d.id)
        .map((a) => ({
          number: a.number,
          at: a.started_at.toISOString(),
          duration_ms: a.duration_ms,
          response_status: a.response_status,
          error_class: a.error_class,
        })),
    })),
    count: data.length,
  };
}

/**
 * Requeues deliveries that gave up or were cancelled, as new attempts of the same event id: a new
 * generation (its own workflow) that continues the attempt count. The relay starts them.
 */
async function requeue(db: DataSource, where: string, params: unknown[]) {
  return db.transaction(async (m) => {
    const rows = await returning<{ id: string; workspace_id: string; generation: number }>(
      m,
      `UPDATE webhook_deliveries d SET status = 'PENDING', generation = generation + 1, workflow_started_at = NULL,
              next_attempt_at = NULL
        WHERE ${where} AND d.status IN ('EXHAUSTED', 'CANCELLED')
          AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = d.endpoint_id AND e.status = 'ACTIVE')
        RETURNING id, workspace_id, generation`,
      params,
    );
    if (rows.length > 0) await m.query(`SELECT pg_notify($1, '')`, [DELIVERIES_CHANNEL]);
    return { m, rows };
  });
}

export async function resendDelivery(db: DataSource, actor: Actor, input: unknown) {
  authorize(actor, MANAGE);
  const { id } = validate(
    yup.object({ id: yup.string().uuid('id must be a UUID').required('id is required') }),
    input,
  );
  const [current] = await db.query<{ status: string; workspace_id: string }[]>(
    'SELECT status, workspace_id FROM webhook_deliveries WHERE id = $1',
    [id],
  );
  if (!current) throw notFound('delivery');
  const { rows } = await requeue(db, 'd.id = $1', [id]);
  if (rows.length === 0) {
    throw new DomainError(
      'conflict',
      `Only a delivery that gave up or was cancelled, to an enabled endpoint, can be resent (this one is ${current.status}).`,
    );
  }
  await writeAudit(
    db,
    operationAudit(actor.ctx, 'delivery.resend', current.workspace_id, { delivery_id: id }),
  );
  return { id, status: 'PENDING', generation: rows[0]!.generation };
}

export async function recoverEndpoint(db: DataSource, actor: Actor, input: unknown) {
  authorize(actor, MANAGE);
  const { id, since } = validate(
    yup.object({
      id: yup.string().uuid('id must be a UUID').required('id is required'),
      since: yup.date().typeError('since must be an ISO 8601 time').required('since is required'),
    }),
    input,
  );
  const [endpoint] = await db.query<{ workspace_id: string; status: string }[]>(
    `SELECT workspace_id, status FROM webhook_endpoints WHERE id = $1 AND status <> 'DELETED'`,
    [id],
  );
  if (!endpoint) throw notFound('endpoint');
  if (endpoint.status !== 'ACTIVE')
    throw new DomainError('conflict', 'The endpoint is disabled; enable it before recovering deliveries.');
  const { rows } = await requeue(db, 'd.endpoint_id = $1 AND d.created_at >= $2', [id, since]);
  await writeAudit(
    db,
    operationAudit(actor.ctx, 'endpoint.recover', endpoint.workspace_id, {
      endpoint_id: id,
      requeued: rows.length,
    }),
  );
  return {
    endpoint_id: id,
    since: since.toISOString(),
    requeued: rows.length,
    delivery_ids: rows.map((r) => r.id),
  };
}

export async function listNotifications(db: DataSource, input: unknown) {
  const { workspaceId } = validate(
    yup.object({
      workspaceId: yup.string().uuid('workspace must be a UUID').required('workspace is required'),
    }),
    input,
  );
  const rows = await db.query<
    { id: string; user_id: string | null; kind: string; message: string; data: unknown; created_at: Date }[]
  >(
    `SELECT id, user_id, kind, message, data, created_at FROM notifications WHERE workspace_id = $1 ORDER BY created_at DESC LIMIT 100`,
    [workspaceId],
  );
  return rows.map((n) => ({ ...n, created_at: n.created_at.toISOString() }));
}
