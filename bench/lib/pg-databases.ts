import pg from 'pg';

/** Cumulative counters of the whole PostgreSQL server, by database, at one moment. */
export type DatabaseReading = { lsn: string; transactions: Record<string, number> };

export type DatabaseCosts = {
  /** Committed and rolled-back transactions per delivery, by database (pg_stat_database), reads included. */
  transactions: Record<string, number>;
  /**
   * WAL record bytes per delivery by the database whose blocks the record changes (pg_walinspect); a
   * record that changes none (a commit) goes with its transaction's other records. `(shared catalogs)`
   * is pg_database and its kind, `(no database)` checkpoints and the like.
   */
  wal_bytes: Record<string, number>;
  /**
   * Of `wal_bytes`, the full-page images: a page's first change after a checkpoint logs the whole
   * page, so this part grows with how often the server checkpoints and how many pages a delivery touches.
   */
  wal_fpi_bytes: Record<string, number>;
  /** The WAL position's advance per delivery: the records above plus page headers and padding. */
  wal_bytes_total: number;
};

// Keeps every WAL segment from the first reading on until the bench has read it: a checkpoint
// during a long phase would otherwise recycle segments pg_walinspect still has to read.
const SLOT = 'bench_webhooks_wal';

// Blocks give a record's database; a record without blocks takes its transaction's. xid has no
// btree ordering, so it is grouped and joined as text.
const WAL_BY_DATABASE = `
  WITH rec AS (
    SELECT start_lsn, xid::text AS xid, record_length, fpi_length
      FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
  ), blk AS (
    SELECT start_lsn, min(reldatabase) AS db FROM pg_get_wal_block_info($1::pg_lsn, $2::pg_lsn, false)
     GROUP BY start_lsn
  ), by_xid AS (
    SELECT r.xid, min(b.db) AS db FROM rec r JOIN blk b USING (start_lsn) WHERE r.xid <> '0' GROUP BY r.xid
  )
  SELECT CASE WHEN coalesce(b.db, x.db) IS NULL THEN '(no database)'
              WHEN coalesce(b.db, x.db) = 0 THEN '(shared catalogs)'
              ELSE coalesce(d.datname, '(dropped)') END AS db,
         sum(r.record_length)::bigint AS bytes, sum(r.fpi_length)::bigint AS fpi
    FROM rec r
    LEFT JOIN blk b USING (start_lsn)
    LEFT JOIN by_xid x ON x.xid = r.xid AND r.xid <> '0'
    LEFT JOIN pg_database d ON d.oid = coalesce(b.db, x.db)
   GROUP BY 1`;

/**
 * A superuser connection to the `postgres` database of the server at `url`, reading transactions by
 * database and the WAL position, and splitting the WAL written between two readings by database.
 * Holds a replication slot from the start until `close`, so that WAL is still there to read.
 */
export async function openDatabaseMeter(url: string) {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
  await client.query(
    `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1`,
    [SLOT],
  );
  await client.query(`SELECT pg_create_physical_replication_slot($1, true)`, [SLOT]);

  const read = async (): Promise<DatabaseReading> => {
    const { rows: wal } = await client.query<{ lsn: string }>(
      `SELECT pg_current_wal_flush_lsn()::text AS lsn`,
    );
    const { rows } = await client.query<{ datname: string; n: string }>(
      `SELECT datname, xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname IS NOT NULL`,
    );
    return { lsn: wal[0]!.lsn, transactions: Object.fromEntries(rows.map((r) => [r.datname, Number(r.n)])) };
  };

  const per = async (
    before: DatabaseReading,
    after: DatabaseReading,
    deliveries: number,
  ): Promise<DatabaseCosts> => {
    const n = Math.max(1, deliveries);
    const round = (x: number, digits = 2) => Math.round((x / n) * 10 ** digits) / 10 ** digits;
    const { rows: wal } = await client.query<{ db: string; bytes: string; fpi: string }>(WAL_BY_DATABASE, [
      before.lsn,
      after.lsn,
    ]);
    const { rows: total } = await client.query<{ bytes: string }>(
      `SELECT pg_wal_lsn_diff($2::pg_lsn, $1::pg_lsn) AS bytes`,
      [before.lsn, after.lsn],
    );
    const transactions = Object.fromEntries(
      Object.entries(after.transactions)
        .map(([db, count]) => [db, round(count - (before.transactions[db] ?? 0))] as const)
        .filter(([, count]) => count > 0),
    );
    return {
      transactions,
      wal_bytes: Object.fromEntries(wal.map((r) => [r.db, round(Number(r.bytes), 0)])),
      wal_fpi_bytes: Object.fromEntries(wal.map((r) => [r.db, round(Number(r.fpi), 0)])),
      wal_bytes_total: round(Number(total[0]!.bytes), 0),
    };
  };

  /** Sessions by database now: how many connections the pools hold under load. */
  const connections = async (): Promise<Record<string, number>> => {
    const { rows } = await client.query<{ datname: string; n: string }>(
      `SELECT datname, count(*) AS n FROM pg_stat_activity WHERE datname IS NOT NULL GROUP BY datname`,
    );
    return Object.fromEntries(rows.map((r) => [r.datname, Number(r.n)]));
  };

  const close = async () => {
    await client.query(`SELECT pg_drop_replication_slot($1)`, [SLOT]).catch(() => undefined);
    await client.end();
  };
  return { read, per, connections, close };
}

export type DatabaseMeter = Awaited<ReturnType<typeof openDatabaseMeter>>;
