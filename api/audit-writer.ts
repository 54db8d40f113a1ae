import type { DataSource } from 'typeorm';
import type { AuditRecord } from '../domain/audit';

const MAX_BATCH = 200;
const COLUMNS = 12;

/**
 * Group commit for request audit rows: requests arriving together share one multi-row INSERT, and
 * each request still waits for its own row to commit before it answers, so nothing is answered
 * unaudited. Under load this turns one commit per request into one commit per batch.
 */
export function createAuditWriter(db: DataSource) {
  const queue: { record: AuditRecord; resolve: () => void; reject: (e: unknown) => void }[] = [];
  let scheduled = false;

  const flush = async () => {
    scheduled = false;
    const batch = queue.splice(0, MAX_BATCH);
    if (queue.length > 0) schedule();
    const params: unknown[] = [];
    // Whatever a caller sent (a NUL in a path or parameter name) must not stop its audit row.
    const clean = (v: string | null | undefined) => (v == null ? null : v.replaceAll('\u0000', '\\0'));
    const rows = batch.map(({ record }, i) => {
      const r = {
        ...record,
        action: clean(record.action)!,
        reason: clean(record.reason),
        keyPrefix: clean(record.keyPrefix),
      };
      params.push(
        r.door,
        r.action,
        r.outcome,
        r.reason ?? null,
        r.status ?? null,
        r.workspaceId ?? null,
        r.keyId ?? null,
      );
      params.push(r.keyPrefix ?? null, r.actorUserId ?? null, r.requestId ?? null, r.clientIp ?? null);
      params.push(r.details ? JSON.stringify(r.details) : null);
      return `(${Array.from({ length: COLUMNS }, (_, j) => `$${i * COLUMNS + j + 1}`).join(', ')})`;
    });
    try {
      await db.query(
        `INSERT INTO audit_log (door, action, outcome, reason, status, workspace_id, key_id, key_prefix,
           actor_user_id, request_id, client_ip, details) VALUES ${rows.join(', ')}`,
        params,
      );
      batch.forEach((b) => b.resolve());
    } catch (err) {
      batch.forEach((b) => b.reject(err));
    }
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void flush());
  };
  return {
    write: (record: AuditRecord) =>
      new Promise<void>((resolve, reject) => {
        queue.push({ record, resolve, reject });
        schedule();
      }),
  };
}
export type AuditWriter = ReturnType<typeof createAuditWriter>;
