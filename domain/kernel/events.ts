import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { EventData, EventType } from './event-catalogue';
import { checkEventData } from './event-validation';
import { RELAY_SLOTS, slotOf } from './outbox';
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
 * The statement that wakes the relay's pass for one outbox at commit (NOTIFY has no TypeORM form). An
 * outbox is rows an area writes with a change that each need a workflow started once they commit; the
 * area declares it (`OutboxDeclaration`, outbox.ts) and notifies under its declared name, which the relay
 * reads it by, so a burst wakes only its own outbox's statements.
 *
 * Given the rows' workspace (for a row of none, what its outbox's `inSlots` hashes instead), the notice
 * also names their slot, `<outbox>:<slot>`, and wakes only the relay holding it: with several workers,
 * a notice for every relay had each of them read its own slots and nearly all find nothing (a second
 * worker cost our database 1.5 ms of CPU per delivery). Without one it wakes every relay.
 */
export function relayNotice(outbox: string, workspaceId?: string): [string, unknown[]] {
  if (workspaceId === undefined) return [`SELECT pg_notify($1, $2)`, [RELAY_CHANNEL, outbox]];
  const slot = slotOf('$3::uuid');
  return [`SELECT pg_notify($1, $2::text || ':' || ${slot})`, [RELAY_CHANNEL, outbox, workspaceId]];
}

/**
 * What a notice's payload (`relayNotice`, `relayWakeUp`) names: `<outbox>:<slot>`, or a bare `<outbox>`
 * (no slot). The relay asks its own names first: an outbox called `x:1` would otherwise read as slotted.
 */
export function readRelayNotice(payload: string): { outbox: string; slot?: number } {
  const slotted = /^(.+):(\d+)$/.exec(payload);
  const slot = Number(slotted?.[2]);
  return slotted && slot < RELAY_SLOTS ? { outbox: slotted[1]!, slot } : { outbox: payload };
}

/**
 * What an area adds to the statement that appends events, handed to the kernel where the areas are put
 * together (the webhooks area's: a delivery for each endpoint subscribed): WITH clauses that read
 * `input` (the events, in the order `n` they were emitted), the last named `fanned_out` and answering
 * the rows it made with their `workspace_id`, and the outbox those rows are in, woken at commit when any
 * was made.
 */
export type EventFanOut = { outbox: string; clauses: (params: unknown[]) => string[] };

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
 * The WITH clauses that append events to the `events` table with the caller's transaction, so each
 * exists exactly when the change that caused it does, and fan them out in the same transaction (what
 * `fanOut` adds). The events go in the order they were emitted. Values are bound into `params`, so the
 * clauses can share a statement with others.
 */
export function eventClauses(events: PendingEvent[], params: unknown[], fanOut: EventFanOut): string[] {
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
  return [
    `input AS (
       SELECT * FROM unnest(${columns.join(', ')})
                WITH ORDINALITY AS e(id, workspace_id, type, created_at, data, envelope, traceparent, n))`,
    `event AS (
       INSERT INTO events (id, workspace_id, type, created_at, data, envelope, traceparent)
       SELECT id, workspace_id, type, created_at, data, envelope, traceparent FROM input ORDER BY n)`,
    ...fanOut.clauses(params),
  ];
}

/**
 * The statement's end after `eventClauses`: wakes the fan-out's outbox at commit, once for each slot its
 * rows fell in (`relayNotice`), so only the relays holding them wake; none when it made no row.
 */
export const relayWakeUp = (params: unknown[], fanOut: EventFanOut) =>
  `SELECT pg_notify(${bind(params, RELAY_CHANNEL)}, ${bind(params, fanOut.outbox)}::text || ':' || s.slot)
     FROM (SELECT DISTINCT ${slotOf('workspace_id')} AS slot FROM fanned_out) AS s`;

/** Appends one event now, with its fan-out (see `eventClauses`), and answers its id. */
export async function emitEvent<T extends EventType>(
  m: Pick<EntityManager, 'query'>,
  fanOut: EventFanOut,
  workspaceId: string,
  type: T,
  subject: Subject,
  fields: EventData<T>,
): Promise<string> {
  const event = prepareEvent(workspaceId, type, subject, fields);
  const params: unknown[] = [];
  const clauses = eventClauses([event], params, fanOut);
  await m.query(`WITH ${clauses.join(', ')} ${relayWakeUp(params, fanOut)}`, params);
  return event.id;
}
