import { arrayOf, dateTime, integer, nullable, object, oneOf, page, string, uuid } from '../kernel/shapes';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../kernel/event-catalogue';
import { INT32_MAX } from '../kernel/json-schema';
import { ERROR_CLASSES } from './delivery-rules';
import {
  DELIVERY_STATUSES,
  ENDPOINT_STATUSES,
  SIGNING_SCHEMES,
  type Attempt,
  type Notification,
} from './entities';
import type { ListedDelivery } from './repository/deliveries';
import type { EndpointRecord } from './repository/endpoints';

const eventId = string({ pattern: '^evt_[0-9a-f]{32}$', maxLength: 36 });
const eventType = oneOf([...EVENT_TYPES, TEST_EVENT_TYPE]);
const httpStatus = nullable(integer({ minimum: 100, maximum: 599 }));

/** What every webhook body is: `{ id, type, created_at, data }`. */
const ENVELOPE = object(
  { id: eventId, type: eventType, created_at: dateTime, data: { type: 'object' } },
  { title: 'Envelope' },
);

/** The operator sees a delivery's latest attempts, this many at most (each resend adds up to 7). */
const ATTEMPT_LOG_LENGTH = 100;

/** The spec's delivery record: never the endpoint URL or secret. */
const DELIVERY_FIELDS = {
  id: uuid,
  event_id: eventId,
  type: eventType,
  status: oneOf(DELIVERY_STATUSES),
  // Every attempt of every resend, counted in an integer column.
  attempts: integer({ minimum: 0, maximum: INT32_MAX }),
  response_status: httpStatus,
  next_attempt_at: nullable(dateTime),
  delivered_at: nullable(dateTime),
  created_at: dateTime,
  payload: ENVELOPE,
  payload_redacted: {
    const: true,
    description: "Present when the key lacks leads:read: the payload's lead contact fields were left out.",
  },
};

/** For the operator, each record also names its endpoint and every attempt made. */
const OPERATOR_FIELDS = {
  endpoint_id: uuid,
  attempt_log: arrayOf(
    object({
      number: integer({ minimum: 1, maximum: INT32_MAX }),
      at: dateTime,
      duration_ms: integer({ minimum: 0, maximum: INT32_MAX }),
      response_status: httpStatus,
      error_class: nullable(
        string({ pattern: `^(${ERROR_CLASSES.join('|')}|http_[0-9]{3})$`, maxLength: 32 }),
      ),
    }),
    { maxItems: ATTEMPT_LOG_LENGTH, description: `The latest ${ATTEMPT_LOG_LENGTH} attempts, oldest first.` },
  ),
};

export const DELIVERY_LIST = page(
  object(
    { ...DELIVERY_FIELDS, ...OPERATOR_FIELDS },
    { optional: ['payload_redacted', ...Object.keys(OPERATOR_FIELDS)] },
  ),
  { title: 'DeliveryList', max: 100 },
);

export const ENDPOINT = object(
  {
    id: uuid,
    workspace_id: uuid,
    url: string(),
    events: arrayOf(string()),
    owner_user_id: nullable(uuid),
    status: oneOf(ENDPOINT_STATUSES),
    disabled_reason: nullable(string()),
    consecutive_failures: integer({ minimum: 0 }),
    signing_scheme: oneOf(SIGNING_SCHEMES),
    previous_secret_expires_at: nullable(dateTime),
    created_at: dateTime,
    updated_at: dateTime,
    secret: string({ description: 'The signing secret (whsec_...), shown this once.' }),
    cancelled_deliveries: integer({ minimum: 0 }),
  },
  { title: 'Endpoint', optional: ['secret', 'cancelled_deliveries'] },
);

export const QUEUED_DELIVERY = object(
  {
    id: uuid,
    event_id: string(),
    type: string(),
    endpoint_id: uuid,
    status: oneOf(DELIVERY_STATUSES),
    created_at: dateTime,
  },
  { title: 'QueuedDelivery' },
);

export const RESENT = object(
  { id: uuid, status: oneOf(['PENDING']), generation: integer({ minimum: 1 }) },
  { title: 'Resent' },
);

export const RECOVERED = object(
  { endpoint_id: uuid, since: dateTime, requeued: integer({ minimum: 0 }), delivery_ids: arrayOf(uuid) },
  { title: 'Recovered' },
);

export const NOTIFICATIONS = arrayOf(
  object({
    id: uuid,
    user_id: nullable(uuid),
    kind: string(),
    message: string(),
    // The one notice there is (record-attempt.ts): an endpoint disabled after deliveries kept failing.
    data: object({
      endpoint_id: uuid,
      reason: string({ maxLength: 500 }),
      cancelled_deliveries: integer({ minimum: 0 }),
    }),
    created_at: dateTime,
  }),
  { title: 'Notifications' },
);

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Never the secret. */
export const endpointView = (e: EndpointRecord) => ({
  id: e.id,
  workspace_id: e.workspace_id,
  url: e.url,
  events: e.event_types,
  owner_user_id: e.owner_user_id,
  status: e.status,
  disabled_reason: e.disabled_reason,
  consecutive_failures: e.consecutive_failures,
  signing_scheme: e.signing_scheme,
  // Until then the secret a rotation replaced also signs every delivery.
  previous_secret_expires_at: iso(e.previous_secret_expires_at),
  created_at: e.created_at.toISOString(),
  updated_at: e.updated_at.toISOString(),
});

/** The spec's delivery record: never the endpoint URL or secret. */
export const deliveryView = (d: ListedDelivery) => ({
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

export const notificationView = (n: Notification) => ({
  id: n.id,
  user_id: n.user_id,
  kind: n.kind,
  message: n.message,
  data: n.data,
  created_at: n.created_at.toISOString(),
});

/** Delivery records with the endpoint each went to and its latest attempts, oldest first (for the operator and an endpoint's log). */
export const withAttemptLog = <D extends { id: string }>(
  rows: Pick<ListedDelivery, 'endpoint_id'>[],
  records: D[],
  attempts: Attempt[],
) =>
  records.map((d, i) => ({
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
  }));
