import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { EventData, EventType } from './event-catalogue';
import { checkEventData } from './event-validation';

/** What an event is about: its `data.subject_type`. */
export const SUBJECT_TYPES = ['lead', 'endpoint', 'opportunity', 'quote', 'invoice'] as const;
export type Subject = { type: (typeof SUBJECT_TYPES)[number]; id: string };

const newEventId = () => `evt_${randomUUID().replace(/-/g, '')}`;

/** The channel the outbox relay listens on; NOTIFY is delivered at commit, so never for a rolled-back event. */
export const DELIVERIES_CHANNEL = 'webhook_deliveries';

/**
 * Appends an event to the outbox with the caller's transaction, so the event exists exactly when
 * the change that caused it does, and fans it out in the same transaction: one delivery per enabled
 * endpoint of the workspace subscribed to the type (or to `*`). `only` restricts the fan-out to one
 * endpoint (the endpoint test). The data is checked against its type's published schema (a mismatch
 * fails the change). The envelope is serialised once here; every attempt sends these bytes.
 */
export async function emitEvent<T extends EventType>(
  m: Pick<EntityManager, 'query'>,
  workspaceId: string,
  type: T,
  subject: Subject,
  fields: EventData<T>,
  only?: { endpointId: string },
): Promise<string> {
  const id = newEventId();
  const createdAt = new Date().toISOString();
  const data = { subject_type: subject.type, subject_id: subject.id, occurred_at: createdAt, ...fields };
  checkEventData(type, data);
  const envelope = JSON.stringify({ id, type, created_at: createdAt, data });
  // One round trip: the event, its deliveries, and the relay's wake-up when there are any.
  await m.query(
    `WITH event AS (
       INSERT INTO events (id, workspace_id, type, created_at, data, envelope) VALUES ($1, $2, $3, $4, $5, $6)
     ), fanned_out AS (
       INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, event_type)
       SELECT workspace_id, id, $1, $3 FROM webhook_endpoints
        WHERE workspace_id = $2 AND status = 'ACTIVE'
          AND ($7::uuid IS NOT NULL AND id = $7 OR $7::uuid IS NULL AND ($3 = ANY(event_types) OR '*' = ANY(event_types)))
       RETURNING id
     )
     SELECT pg_notify($8, '') FROM (SELECT 1 FROM fanned_out LIMIT 1) AS any_delivery`,
    [
      id,
      workspaceId,
      type,
      createdAt,
      JSON.stringify(data),
      envelope,
      only?.endpointId ?? null,
      DELIVERIES_CHANNEL,
    ],
  );
  return id;
}

/** Wakes the outbox relay at commit (requeued deliveries use it too). */
export const notifyRelay = (m: Pick<EntityManager, 'query'>) =>
  m.query(`SELECT pg_notify($1, '')`, [DELIVERIES_CHANNEL]);
