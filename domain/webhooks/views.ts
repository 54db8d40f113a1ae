export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED', 'EXHAUSTED', 'CANCELLED'] as const;

export type EndpointRow = {
  id: string;
  workspace_id: string;
  url: string;
  event_types: string[];
  owner_user_id: string | null;
  status: string;
  disabled_reason: string | null;
  consecutive_failures: number;
  created_at: Date;
  updated_at: Date;
};
/** Never the secret. */
export const ENDPOINT_COLUMNS = `id, workspace_id, url, event_types, owner_user_id, status, disabled_reason, consecutive_failures, created_at, updated_at`;

export const endpointView = (e: EndpointRow) => ({
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

export type DeliveryRow = {
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
export const deliveryView = (d: DeliveryRow) => ({
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
