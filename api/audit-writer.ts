import type { DataSource } from 'typeorm';
import { auditInsert, type AuditRecord } from '../domain/kernel/audit';

const MAX_BATCH = 200;

/**
 * Group commit for request audit rows: requests arriving together share one multi-row INSERT, and
 * each request still waits for its own row to commit before it answers, so nothing is answered
 * unaudited. Under load this turns one commit per request into one commit per batch. The queue is
 * bounded (AUDIT_QUEUE_LIMIT): while it is full the API sheds new requests with 503.
 */
export function createAuditWriter(db: DataSource, limit = Infinity) {
  const queue: { record: AuditRecord; resolve: () => void; reject: (e: unknown) => void }[] = [];
  let scheduled = false;
  // Rows queued or being written: a stalled INSERT holds its batch, which counts against the limit.
  let pending = 0;

  const flush = async () => {
    scheduled = false;
    const batch = queue.splice(0, MAX_BATCH);
    if (queue.length > 0) schedule();
    try {
      const { sql, params } = auditInsert(batch.map((b) => b.record));
      await db.query(sql, params);
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
    /** As many rows wait as the limit allows: a stalled database must cost refusals, not memory. */
    full: () => pending >= limit,
    /** Rows queued or being written now (a metric, read at scrape time). */
    backlog: () => pending,
    write: (record: AuditRecord) => {
      pending += 1;
      return new Promise<void>((resolve, reject) => {
        queue.push({ record, resolve, reject });
        schedule();
      }).finally(() => (pending -= 1));
    },
  };
}
export type AuditWriter = ReturnType<typeof createAuditWriter>;
