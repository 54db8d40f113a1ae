import type { Data } from './data';

/**
 * Runs one bounded batch of a purge (a DELETE whose rows a `LIMIT`ed subquery picks) and answers how
 * many rows went. SQL: DELETE has no LIMIT of its own, and counting in the statement keeps the
 * deleted rows off the wire.
 */
export async function purgeBatch(data: Data, deleteSql: string, params: unknown[]): Promise<number> {
  const [{ n }] = await data.sql<[{ n: number }]>(
    `WITH gone AS (${deleteSql} RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    params,
  );
  return n;
}

/**
 * One batch of a table's rows whose `column` is older than $1 `unit`s, up to $2 of them, picked by
 * `key` (the table's own key, or the row's ctid when the key has two columns).
 */
const olderThan = (table: string, key: string, column: string, unit: 'hours' | 'days') =>
  `DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${table}
    WHERE ${column} < clock_timestamp() - make_interval(${unit} => $1) LIMIT $2)`;

/** Deletes up to `limit` idempotency records older than `hours` (every workspace's). */
export const purgeIdempotencyKeys = (data: Data, hours: number, limit: number) =>
  purgeBatch(data, olderThan('idempotency_keys', 'ctid', 'created_at', 'hours'), [hours, limit]);

/** Deletes up to `limit` audit rows older than `days` (every workspace's). */
export const purgeAuditRows = (data: Data, days: number, limit: number) =>
  purgeBatch(data, olderThan('audit_log', 'id', 'at', 'days'), [days, limit]);
