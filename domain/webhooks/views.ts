import type { Notification } from './entities';
import type { ListedDelivery } from './repository/deliveries';
import type { EndpointRecord } from './repository/endpoints';

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
