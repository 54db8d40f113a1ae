import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { EventData, EventType } from './event-catalogue';
import { checkEventData } from './event-validation';
import { bind } from './statements';
import { activeTraceparent } from './tracing';

/** What an event is about: its `data.subject_type`. */
export const SUBJECT_TYPES = ['lead', 'endpoint', 'opportunity', 'quote', 'invoice', 'campaign'] as const;
export type Subject = { type: (typeof SUBJECT_TYPES)[number]; id: string };

const newEventId = () => `evt_${randomUUID().replace(/-/g, '')}`;

/**
 * The channel the outbox relay listens on (named for its first outbox; every outbox notifies on it).
 * NOTIFY is delivered at commit, so never for a rolled-back change.
 */
export const RELAY_CHANNEL = 'webhook_deliveries';

/**
 * The outboxes the relay starts workflows for. A NOTIFY's payload names one, so that the pass it wakes
 * reads only that outbox (a burst of events wakes the deliveries' statements, not all seven outboxes');
 * an empty or unknown payload wakes them all.
 */
export type Outbox =
  | 'webhook delivery'
  | 'message'
  | 'campaign'
  | 'sourcing run'
  | 'quote expiry'
  | 'invoice due date'
  | 'agent schedule';

/** The statement that wakes the relay for `outbox` at commit (NOTIFY has no TypeORM form). */
export const relayNotice = (outbox: Outbox): [string, unknown[]] => [
  `SELECT pg_notify($1, $2)`,
  [RELAY_CHANNEL, outbox],
];

/** An event made ready to append: its id, time and envelope are fixed when it is emitted. */
export type PendingEvent = {
  id: string;
  workspaceId: string;
  type: EventType;
  createdAt: string;
  data: Record<string, unknown>;
  envelope: string;
  /** The trace of the change that emitted it, which its deliveries continue (null when untraced). */
  traceparent: string | null;
};

/**
 * Makes an event ready to append: the data is checked against its type's published schema (a mismatch
 * fails the change), and the envelope is serialised once here; every attempt sends these bytes.
 */
export function prepareEvent<T extends EventType>(
  workspaceId: string,
  type: T,
  subject: Subject,
  fields: EventData<T>,
): PendingEvent {
  const id = newEventId();
  const createdAt = new Date().toISOString();
  const data = { subject_type: subject.type, subject_id: subject.id, occurred_at: createdAt, ...fields };
  checkEventData(type, data);
  const envelope = JSON.stringify({ id, type, created_at: createdAt, data });
  return { id, workspaceId, type, createdAt, data, envelope, traceparent: activeTraceparent() };
}

/**
 * The WITH clauses that append events to the outbox with the caller's transaction, so each exists
 * exactly when the change that caused it does, and fan them out in the same transaction: one delivery
 * per enabled endpoint of the event's workspace subscribed to its type (or to `*`). `only` restricts
 * the fan-out to one endpoint (the endpoint test). The events go in the order they were emitted; the
 * last clause, `fanned_out`, answers the deliveries made, which `relayWakeUp` reads. Values are bound
 * into `params`, so the clauses can share a statement with others.
 */
export function eventClauses(
  events: PendingEvent[],
  params: unknown[],
  only?: { endpointId: string },
): string[] {
  // One array per column, unnested together: any number of events in one statement.
  const column = (type: string, value: (e: PendingEvent) => unknown) =>
    `${bind(params, events.map(value))}::${type}`;
  const columns = [
    column('text[]', (e) => e.id),
    column('uuid[]', (e) => e.workspaceId),
    column('text[]', (e) => e.type),
    column('timestamptz[]', (e) => e.createdAt),
    column('jsonb[]', (e) => JSON.stringify(e.data)),
    column('text[]', (e) => e.envelope),
    column('text[]', (e) => e.traceparent),
  ];
  const endpoint = bind(params, only?.endpointId ?? null);
  return [
    `input AS (
       SELECT * FROM unnest(${columns.join(', ')})
                WITH ORDINALITY AS e(id, workspace_id, type, created_at, data, envelope, traceparent, n))`,
    `event AS (
       INSERT INTO events (id, workspace_id, type, created_at, data, envelope, traceparent)
       SELECT id, workspace_id, type, created_at, data, envelope, traceparent FROM input ORDER BY n)`,
    `fanned_out AS (
       INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, event_type)
       SELECT w.workspace_id, w.id, e.id, e.type
         FROM input e JOIN webhook_endpoints w ON w.workspace_id = e.workspace_id AND w.status = 'ACTIVE'
        WHERE (${endpoint}::uuid IS NOT NULL AND w.id = ${endpoint}
               OR ${endpoint}::uuid IS NULL AND (e.type = ANY(w.event_types) OR '*' = ANY(w.event_types)))
        ORDER BY e.n
       RETURNING id)`,
  ];
}

/**
 * The statement's end after `eventClauses`: wakes the outbox relay's deliveries at commit when any
 * delivery was made.
 */
export const relayWakeUp = (params: unknown[]) =>
  `SELECT pg_notify(${bind(params, RELAY_CHANNEL)}, ${bind(params, 'webhook delivery' satisfies Outbox)}) FROM (SELECT 1 FROM fanned_out LIMIT 1) AS any_delivery`;

/** Appends events (see `eventClauses`) in one round trip, whatever their number. */
async function appendEvents(
  m: Pick<EntityManager, 'query'>,
  events: PendingEvent[],
  only?: { endpointId: string },
): Promise<void> {
  if (events.length === 0) return;
  const params: unknown[] = [];
  const clauses = eventClauses(events, params, only);
  await m.query(`WITH ${clauses.join(', ')} ${relayWakeUp(params)}`, params);
}

/** Appends one event now (see `appendEvents`) and answers its id. */
export async function emitEvent<T extends EventType>(
  m: Pick<EntityManager, 'query'>,
  workspaceId: string,
  type: T,
  subject: Subject,
  fields: EventData<T>,
  only?: { endpointId: string },
): Promise<string> {
  const event = prepareEvent(workspaceId, type, subject, fields);
  await appendEvents(m, [event], only);
  return event.id;
}

/** Wakes the outbox relay at commit (requeued deliveries use it too). */
export const notifyRelay = (m: Pick<EntityManager, 'query'>) => m.query(...relayNotice('webhook delivery'));
