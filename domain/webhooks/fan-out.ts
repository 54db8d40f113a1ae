import { bind } from '../kernel/statements';
import type { EventFanOut } from '../kernel/events';

/** The outbox of webhook deliveries (outboxes.ts), as a NOTIFY names it to wake the relay's pass for them. */
export const DELIVERY_OUTBOX = 'webhook delivery';

/**
 * Whether endpoint `w` (a row of webhook_endpoints) wants an event of type `type` (SQL expressions):
 * switched on, and subscribed to the type or to `*`. The one rule: the fan-out makes a delivery where it
 * holds, and an attempt sends one only while it still does (`attemptsIn(...).target`).
 */
export const subscribed = (w: string, type: string) =>
  `(${w}.status = 'ACTIVE' AND (${type} = ANY(${w}.event_types) OR '*' = ANY(${w}.event_types)))`;

/**
 * The webhooks area's part of every event statement: one delivery for each endpoint of the event's
 * workspace that wants it, in the order the events were emitted, woken at commit (the relay holding
 * each one's workspace's slot: `relayWakeUp`).
 */
export const deliveryFanOut: EventFanOut = {
  outbox: DELIVERY_OUTBOX,
  clauses: () => [
    `fanned_out AS (
       INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, event_type)
       SELECT w.workspace_id, w.id, e.id, e.type
         FROM input e JOIN webhook_endpoints w ON w.workspace_id = e.workspace_id AND ${subscribed('w', 'e.type')}
        ORDER BY e.n
       RETURNING workspace_id)`,
  ],
};

/** The fan-out of the endpoint test: its one event goes to the one endpoint named, whatever it subscribes to. */
export const fanOutTo = (endpointId: string): EventFanOut => ({
  outbox: DELIVERY_OUTBOX,
  clauses: (params) => [
    `fanned_out AS (
       INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, event_type)
       SELECT w.workspace_id, w.id, e.id, e.type
         FROM input e JOIN webhook_endpoints w ON w.workspace_id = e.workspace_id AND w.status = 'ACTIVE'
        WHERE w.id = ${bind(params, endpointId)}
       RETURNING workspace_id)`,
  ],
});
