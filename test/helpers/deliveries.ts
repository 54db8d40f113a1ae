import type { DataSource, EntityManager } from 'typeorm';
import { emitEvent } from '../../domain/kernel/events';
import { deliveryFanOut } from '../../domain/webhooks/fan-out';

const LEAD = '00000000-0000-4000-8000-000000000001';

/** Emits a lead.created in the workspace within `m`'s transaction, as an operation would; answers its id. */
export const emitLeadCreated = (m: EntityManager, workspaceId: string) =>
  emitEvent(
    m,
    deliveryFanOut,
    workspaceId,
    'lead.created',
    { type: 'lead', id: LEAD },
    { lead_id: LEAD, status: 'NEW', source_type: 'form', source: 'test' },
  );

/** Emits a lead.created in the workspace and answers its delivery to `endpointId`. */
export async function leadCreatedDelivery(db: DataSource, workspaceId: string, endpointId: string) {
  const eventId = await db.transaction((m) => emitLeadCreated(m, workspaceId));
  const [d] = await db.query<{ id: string }[]>(
    'SELECT id FROM webhook_deliveries WHERE event_id = $1 AND endpoint_id = $2',
    [eventId, endpointId],
  );
  return d!.id;
}
