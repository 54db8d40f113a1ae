import type { DataSource } from 'typeorm';
import { batched } from '../infra/batch';
import { auditInsert, type AuditRecord } from '../domain/kernel/audit';

/**
 * Group commit for request audit rows: requests arriving together share one multi-row INSERT, and
 * each request still waits for its own row to commit before it answers, so nothing is answered
 * unaudited. The queue is bounded (AUDIT_QUEUE_LIMIT): while it is full the API sheds new requests
 * with 503.
 */
export function createAuditWriter(db: DataSource, limit = Infinity) {
  // Rows queued or being written: a stalled INSERT holds its batch, which counts against the limit.
  let pending = 0;
  const insert = batched(async (records: AuditRecord[]) => {
    const { sql, params } = auditInsert(records);
    await db.query(sql, params);
    return records.map(() => undefined);
  });
  return {
    /** As many rows wait as the limit allows: a stalled database must cost refusals, not memory. */
    full: () => pending >= limit,
    /** Rows queued or being written now (a metric, read at scrape time). */
    backlog: () => pending,
    write: (record: AuditRecord): Promise<void> => {
      pending += 1;
      return insert(record).finally(() => (pending -= 1));
    },
  };
}
export type AuditWriter = ReturnType<typeof createAuditWriter>;
