import type { EntityManager } from 'typeorm';
import { bind } from './statements';

/**
 * Which door a call came through: the REST API, the assistant endpoint, the operator CLI, an approved
 * action (or other work of the worker), a public page or provider webhook that carries no API key, an
 * AI agent's run, a member signed in to the console, or the authorization server assistants connect
 * through (its endpoints and metadata).
 */
export type AuditDoor = 'rest' | 'mcp' | 'admin' | 'activity' | 'public' | 'agent' | 'console' | 'oauth';
/** `parked`: a gated call waits for a person's approval; nothing has happened yet. */
export type AuditOutcome = 'allowed' | 'refused' | 'failed' | 'parked';

export type AuditRecord = {
  door: AuditDoor;
  action: string;
  outcome: AuditOutcome;
  reason?: string | null;
  status?: number | null;
  workspaceId?: string | null;
  keyId?: string | null;
  keyPrefix?: string | null;
  actorUserId?: string | null;
  requestId?: string | null;
  clientIp?: string | null;
  details?: Record<string, unknown> | null;
  /** The OAuth client of an assistant connection the call came through. */
  clientId?: string | null;
};

/** Who is calling an operation, and through which door; written into every audit row it makes. */
export type CallContext = {
  door: AuditDoor;
  requestId?: string;
  clientIp?: string;
  keyId?: string;
  keyPrefix?: string;
  actorUserId?: string;
  /** The OAuth client, when the key is an assistant connection. */
  clientId?: string;
};

// Whatever a caller sent (a NUL in a path or parameter name) must not stop its audit row.
const clean = (v: string | null | undefined) => (v == null ? null : v.replaceAll('\u0000', '\\0'));

/** One INSERT for any number of audit rows, its values bound into `params`. */
export function auditInsertInto(records: AuditRecord[], params: unknown[]): string {
  const rows = records.map((r) => {
    const values = [
      r.door,
      clean(r.action),
      r.outcome,
      clean(r.reason),
      r.status ?? null,
      r.workspaceId ?? null,
      r.keyId ?? null,
      clean(r.keyPrefix),
      r.actorUserId ?? null,
      r.requestId ?? null,
      r.clientIp ?? null,
      r.details ? JSON.stringify(r.details) : null,
      clean(r.clientId),
    ];
    return `(${values.map((v) => bind(params, v)).join(', ')})`;
  });
  return `INSERT INTO audit_log (door, action, outcome, reason, status, workspace_id, key_id, key_prefix,
            actor_user_id, request_id, client_ip, details, client_id) VALUES ${rows.join(', ')}`;
}

/** One INSERT for any number of audit rows: the SQL and its parameters. */
export function auditInsert(records: AuditRecord[]): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  return { sql: auditInsertInto(records, params), params };
}

/** Written with the caller's manager, so an operation's audit row commits or rolls back with its change. */
export async function writeAudit(m: Pick<EntityManager, 'query'>, r: AuditRecord): Promise<void> {
  const { sql, params } = auditInsert([r]);
  await m.query(sql, params);
}
