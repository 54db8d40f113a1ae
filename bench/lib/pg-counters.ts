import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource } from 'typeorm';

export type PgCounters = { xact_commit: number; wal_bytes: number; rows: Record<string, number> };

export type PgCostPerDelivery = {
  /** Committed transactions of every process, reads included (the relay's polls among them). */
  transactions: number;
  /** Rows inserted, updated or deleted in our tables (not the catalogues ANALYZE writes). */
  rows_written: number;
  rows_by_table: Record<string, number>;
  /** Exact, but includes what autovacuum writes meanwhile. */
  wal_bytes: number;
  /** With `BENCH_PG_STATEMENTS=1`: the most called statements of this database, calls per delivery. */
  statements?: { calls: number; query: string }[];
};

/**
 * `BENCH_PG_STATEMENTS=1` loads pg_stat_statements into the bench's PostgreSQL, and each throughput phase
 * then lists its statements (what a transaction count alone cannot say: whose they are).
 */
export const statementsWanted = () => process.env.BENCH_PG_STATEMENTS === '1';
export const statementSettings = (): Record<string, string> =>
  statementsWanted()
    ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' }
    : {};

/** Counts from here on (nested statements, such as foreign-key checks, included). */
export async function resetStatements(db: DataSource): Promise<void> {
  if (!statementsWanted()) return;
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await db.query('SELECT pg_stat_statements_reset()');
}

/** The 20 statements of this database called most since the reset, per delivery, each on one line. */
export async function readStatements(db: DataSource, deliveries: number) {
  if (!statementsWanted()) return undefined;
  const rows = await db.query<{ calls: string; query: string }[]>(
    `SELECT calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 200) AS query FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND query NOT LIKE '%pg_stat_statements%'
      ORDER BY calls DESC LIMIT 20`,
  );
  return rows.map((r) => ({
    calls: Math.round((Number(r.calls) / deliveries) * 1000) / 1000,
    query: r.query,
  }));
}

// A backend publishes its statistics at most once a second, and one that goes idle with some
// unpublished waits up to 10 s (PGSTAT_IDLE_INTERVAL): an earlier read misses the pool's last writes.
const STATS_SETTLE_MS = 11_000;

/** Our PostgreSQL's cumulative counters for this database, all processes together. */
export async function readPgCounters(db: DataSource): Promise<PgCounters> {
  await sleep(STATS_SETTLE_MS);
  const [totals] = await db.query<{ xact_commit: string; wal: string }[]>(
    `SELECT xact_commit, pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') AS wal
       FROM pg_stat_database WHERE datname = current_database()`,
  );
  const tables = await db.query<{ relname: string; n: string }[]>(
    `SELECT relname, n_tup_ins + n_tup_upd + n_tup_del AS n FROM pg_stat_user_tables`,
  );
  return {
    xact_commit: Number(totals!.xact_commit),
    wal_bytes: Number(totals!.wal),
    rows: Object.fromEntries(tables.map((t) => [t.relname, Number(t.n)])),
  };
}

export function perDelivery(before: PgCounters, after: PgCounters, deliveries: number): PgCostPerDelivery {
  const per = (delta: number, digits = 2) => Math.round((delta / deliveries) * 10 ** digits) / 10 ** digits;
  const rowsByTable = Object.fromEntries(
    Object.entries(after.rows)
      .map(([table, n]) => [table, per(n - (before.rows[table] ?? 0))] as const)
      .filter(([, n]) => n > 0),
  );
  const rowsWritten = Object.entries(after.rows).reduce(
    (sum, [table, n]) => sum + n - (before.rows[table] ?? 0),
    0,
  );
  return {
    transactions: per(after.xact_commit - before.xact_commit),
    rows_written: per(rowsWritten),
    rows_by_table: rowsByTable,
    wal_bytes: per(after.wal_bytes - before.wal_bytes, 0),
  };
}
