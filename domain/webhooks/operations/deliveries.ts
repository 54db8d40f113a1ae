import * as yup from 'yup';
import { actorUserId } from '../../kernel/actor';
import { DomainError, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, WRITE, defineOperation } from '../../kernel/operation';
import type { Requirement } from '../../kernel/permissions';
import { pageSize } from '../../kernel/validate';
import { DELIVERY_STATUSES } from '../entities';
import {
  ATTEMPT_LOG_LENGTH,
  DELIVERY_LIST,
  NOTIFICATIONS,
  RECOVERED,
  RESENT,
  deliveryView,
  notificationView,
} from '../views';
import { deliveriesIn } from '../repository/deliveries';
import { endpointsIn } from '../repository/endpoints';
import { notificationsIn } from '../repository/notifications';
import { AREA } from '../area';

const READ_DELIVERIES: Requirement = { scope: 'business:read', minRole: 'viewer' };
/** Endpoints are managed in the application's settings (here, the operator door); a key would need this. */
export const MANAGE_ENDPOINTS: Requirement = { scope: 'business:write', minRole: 'admin' };

/** `delivery.list` (GET /events): JSON types; the REST door reads its query string into them. */
export const deliveryParamsSchema = yup
  .object({
    type: describe(
      yup
        .string()
        .max(100, 'type must be at most 100 characters')
        .matches(/^[a-z_]+(\.[a-z_]+)+$/, 'type must be an event type, for example lead.created'),
      'Only deliveries of this event type, for example lead.created.',
    ),
    status: describe(
      yup.string().oneOf([...DELIVERY_STATUSES], `status must be one of ${DELIVERY_STATUSES.join(', ')}`),
      'PENDING (queued), FAILED (retrying), SUCCEEDED, EXHAUSTED (gave up) or CANCELLED.',
    ),
    limit: describe(pageSize(100), 'How many, 1 to 100 (default 25).'),
  })
  .strict(true)
  .noUnknown(true, (p: { unknown: string }) => `${p.unknown} is not a parameter of this list`);

/** Deliveries of a workspace, newest first; the operator also sees the endpoint and every attempt. */
export const listDeliveries = defineOperation({
  name: 'delivery.list',
  title: 'List webhook deliveries',
  description:
    "The workspace's webhook deliveries, newest first, each with the event payload that was sent; never an endpoint URL or secret.",
  returns: '{ data: [delivery], count }.',
  requirement: READ_DELIVERIES,
  reach: 'workspace',
  ...READ_ONLY,
  input: deliveryParamsSchema,
  output: DELIVERY_LIST,
  doors: {
    rest: { method: 'get', path: '/events', operationId: 'listDeliveries', area: AREA },
    admin: {
      command: 'delivery list',
      flags: (f) => ({ type: f.type, status: f.status, limit: f.limit }),
      present: (out: { data: unknown }) => out.data,
    },
  },
  summary: () => 'List webhook deliveries',
  run: async (ctx, p) => {
    const deliveries = deliveriesIn(ctx.data);
    const rows = await deliveries.list(p);
    // Lead contact details inside payloads are for keys that may read leads; the rest see ids, types, times.
    const redact = ctx.actor.type === 'key' && !ctx.actor.principal.scopes.includes('leads:read');
    const data = rows.map((r) => (redact ? withoutContact(deliveryView(r)) : deliveryView(r)));
    if (ctx.actor.type !== 'operator') return { data, count: data.length };
    const attempts = await deliveries.attemptsOf(rows.map((r) => r.id));
    return {
      data: data.map((d, i) => ({
        ...d,
        endpoint_id: rows[i]!.endpoint_id,
        attempt_log: attempts
          .filter((a) => a.delivery_id === d.id)
          .slice(-ATTEMPT_LOG_LENGTH)
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
  },
});

const CONTACT_FIELDS = ['first_name', 'last_name', 'email', 'phone', 'postcode'];

/** A delivery record whose payload keeps everything but the lead's contact details, and says so. */
function withoutContact(record: ReturnType<typeof deliveryView>) {
  const payload = record.payload as { data?: Record<string, unknown> };
  const data = Object.fromEntries(
    Object.entries(payload.data ?? {}).filter(([k]) => !CONTACT_FIELDS.includes(k)),
  );
  return { ...record, payload: { ...payload, data }, payload_redacted: true as const };
}

/**
 * What the two requeues share: an operator's change on a record. A requeued delivery is a new ladder
 * of attempts of the same event id: a new generation (its own workflow) that continues the attempt
 * count. The relay starts it.
 */
const requeue = { ...WRITE, requirement: MANAGE_ENDPOINTS, reach: 'record', operatorOnly: true } as const;

const id = (what: string) =>
  describe(yup.string().uuid('id must be a UUID').required('id is required'), `The ${what} id.`);

export const resendDelivery = defineOperation({
  name: 'delivery.resend',
  title: 'Resend a delivery',
  description:
    'Sends a delivery that gave up or was cancelled again, as a new ladder of attempts of the same event id (receivers dedupe on it).',
  returns: '{ id, status: PENDING, generation }.',
  ...requeue,
  input: yup.object({ id: id('delivery') }),
  output: RESENT,
  doors: { admin: { command: 'delivery resend', flags: (f) => ({ id: f.id }) } },
  summary: (i) => `Resend delivery ${i.id}`,
  run: async (ctx, { id }) => {
    const deliveries = deliveriesIn(ctx.data);
    const current = await deliveries.lock(id);
    if (!current) throw notFound('delivery');
    const rows = await deliveries.resend(id);
    if (rows.length === 0) {
      throw new DomainError(
        'conflict',
        `Only a delivery that gave up or was cancelled, to an enabled endpoint, can be resent (this one is ${current.status}).`,
      );
    }
    ctx.audit(current.workspace_id, { delivery_id: id });
    return { id, status: 'PENDING', generation: rows[0]!.generation };
  },
});

export const recoverEndpoint = defineOperation({
  name: 'endpoint.recover',
  title: "Requeue an endpoint's failed deliveries",
  description:
    'Requeues every delivery to the endpoint that gave up or was cancelled since a time, for example after its receiver was fixed.',
  returns: '{ endpoint_id, since, requeued, delivery_ids }.',
  ...requeue,
  idempotent: true,
  input: yup.object({
    id: id('endpoint'),
    since: describe(
      yup.date().typeError('since must be an ISO 8601 time').required('since is required'),
      'Requeue deliveries created at or after this time (ISO 8601).',
    ),
  }),
  output: RECOVERED,
  doors: { admin: { command: 'endpoint recover', flags: (f) => ({ id: f.id, since: f.since }) } },
  summary: (i) => `Requeue the failed deliveries of endpoint ${i.id} since ${i.since.toISOString()}`,
  run: async (ctx, { id, since }) => {
    const endpoint = await endpointsIn(ctx.data).find(id);
    if (!endpoint) throw notFound('endpoint');
    if (endpoint.status !== 'ACTIVE')
      throw new DomainError('conflict', 'The endpoint is disabled; enable it before recovering deliveries.');
    const rows = await deliveriesIn(ctx.data).recover(id, since);
    ctx.audit(endpoint.workspace_id, { endpoint_id: id, requeued: rows.length });
    return {
      endpoint_id: id,
      since: since.toISOString(),
      requeued: rows.length,
      delivery_ids: rows.map((r) => r.id),
    };
  },
});

export const listNotifications = defineOperation({
  name: 'notification.list',
  title: 'List notifications',
  description:
    "Notices for the workspace's people, newest first (for example an endpoint disabled after 20 failures).",
  returns: 'Notifications.',
  requirement: { scope: 'business:read', minRole: 'viewer' },
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({}),
  output: NOTIFICATIONS,
  doors: { admin: { command: 'notification list' } },
  summary: () => 'List notifications',
  run: async (ctx) =>
    (await notificationsIn(ctx.data).visibleTo(actorUserId(ctx.actor))).map(notificationView),
});
