import type { AuditDoor, AuditOutcome } from './audit';
import { clockDefault, entity, IDENTITY, inWorkspace, oneOfCheck } from './entity';

const DOORS: AuditDoor[] = ['rest', 'mcp', 'admin', 'activity', 'public', 'agent', 'console', 'oauth'];
const OUTCOMES: AuditOutcome[] = ['allowed', 'refused', 'failed', 'parked'];

export type AuditRow = {
  id: string;
  at: Date;
  door: AuditDoor;
  action: string;
  outcome: AuditOutcome;
  reason: string | null;
  status: number | null;
  workspace_id: string | null;
  key_id: string | null;
  key_prefix: string | null;
  actor_user_id: string | null;
  request_id: string | null;
  client_ip: string | null;
  details: Record<string, unknown> | null;
  /** The OAuth client a call through an assistant connection came from. */
  client_id: string | null;
};
export const AuditEntity = entity<AuditRow>({
  name: 'Audit',
  tableName: 'audit_log',
  columns: {
    id: {
      type: 'bigint',
      primary: true,
      generated: IDENTITY,
      primaryKeyConstraintName: 'audit_log_pkey',
    },
    at: clockDefault,
    door: { type: 'text' },
    action: { type: 'text' },
    outcome: { type: 'text' },
    reason: { type: 'text', nullable: true },
    status: { type: 'integer', nullable: true },
    workspace_id: { type: 'uuid', nullable: true },
    key_id: { type: 'uuid', nullable: true },
    key_prefix: { type: 'text', nullable: true },
    actor_user_id: { type: 'uuid', nullable: true },
    request_id: { type: 'text', nullable: true },
    client_ip: { type: 'text', nullable: true },
    details: { type: 'jsonb', nullable: true },
    client_id: { type: 'text', nullable: true },
  },
  checks: [oneOfCheck('audit_log', 'door', DOORS), oneOfCheck('audit_log', 'outcome', OUTCOMES)],
  indices: [
    { name: 'audit_log_at', columns: ['at'] },
    { name: 'audit_log_request', columns: ['request_id'] },
    // Newest first per workspace (DESC; the migration made it).
    { name: 'audit_log_workspace_at', columns: ['workspace_id', 'id'], synchronize: false },
    // A key's newest rows (DESC, of rows with a key; the migration made it): its last use, its filter.
    { name: 'audit_log_key', columns: ['key_id', 'id'], synchronize: false },
  ],
});

/** The transactional outbox: written in the same transaction as the change that caused it. */
export type EventRow = {
  id: string;
  seq: string;
  workspace_id: string;
  type: string;
  created_at: Date;
  data: Record<string, unknown>;
  /** The exact bytes sent on every attempt of every delivery of the event. */
  envelope: string | null;
  /** W3C trace context of the change that emitted it; its deliveries' spans continue that trace. */
  traceparent: string | null;
};
export const EventEntity = entity<EventRow>({
  name: 'Event',
  tableName: 'events',
  columns: {
    id: { type: 'text', primary: true, primaryKeyConstraintName: 'events_pkey' },
    seq: { type: 'bigint', generated: IDENTITY },
    workspace_id: { type: 'uuid' },
    type: { type: 'text' },
    created_at: { type: 'timestamptz', default: () => "date_trunc('milliseconds', clock_timestamp())" },
    data: { type: 'jsonb' },
    envelope: { type: 'text', nullable: true },
    traceparent: { type: 'text', nullable: true },
  },
  relations: inWorkspace('events'),
  uniques: [{ name: 'events_seq_key', columns: ['seq'] }],
  indices: [
    { name: 'events_created', columns: ['created_at'] },
    { name: 'events_workspace', columns: ['workspace_id', 'created_at'], synchronize: false },
  ],
});

/** The first answer to a key's request with an Idempotency-Key, replayed for 24 hours. */
export type IdempotencyRow = {
  key_id: string;
  idempotency_key: string;
  request_hash: Buffer;
  response_status: number;
  response_body: unknown;
  created_at: Date;
};
export const IdempotencyEntity = entity<IdempotencyRow>({
  name: 'Idempotency',
  tableName: 'idempotency_keys',
  columns: {
    key_id: { type: 'uuid', primary: true, primaryKeyConstraintName: 'idempotency_keys_pkey' },
    idempotency_key: { type: 'text', primary: true, primaryKeyConstraintName: 'idempotency_keys_pkey' },
    request_hash: { type: 'bytea' },
    response_status: { type: 'integer' },
    response_body: { type: 'jsonb' },
    created_at: clockDefault,
  },
  indices: [{ name: 'idempotency_keys_created', columns: ['created_at'] }],
});

/**
 * Requests to a public route family (unsubscribe links, quote pages, provider webhooks) per bucket (a
 * client address, a workspace) per minute, shared by every API process (UNLOGGED: a crash may forget a
 * minute).
 */
export type PublicRateWindow = { bucket: string; window_start: Date; hits: number };
export const PublicRateWindowEntity = entity<PublicRateWindow>({
  name: 'PublicRateWindow',
  tableName: 'public_rate_windows',
  columns: {
    bucket: { type: 'text', primary: true, primaryKeyConstraintName: 'public_rate_windows_pkey' },
    window_start: {
      type: 'timestamptz',
      primary: true,
      primaryKeyConstraintName: 'public_rate_windows_pkey',
    },
    hits: { type: 'integer' },
  },
});
