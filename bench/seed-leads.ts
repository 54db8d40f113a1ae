import { performance } from 'node:perf_hooks';
import type { DataSource } from 'typeorm';
import type { Logger } from '../infra/logger';
import { withCleanup } from '../tooling/cleanup';
import { parseIntFlags } from './lib/args';
import { benchWorkspace, openBenchDatabase } from './lib/bench-database';
import { benchLogger } from './lib/log';
import {
  BUDGETS,
  FIRST_NAMES,
  LAST_NAMES,
  MESSAGE_BODIES,
  POSTCODES,
  POSTED_SOURCE,
  SOURCES,
  TIMEFRAMES,
} from './lib/seed-data';

export const DEFAULT_LEADS = 1_000_000;
const BATCH = 100_000;

/**
 * Lead n (1..N) is derived from hash(n) alone, so a top-up continues the same data set. created_at
 * grows with n (plus jitter) across the past year, the way a real table's physical order follows
 * time. Every 50th lead gets 1-25 messages in the same statement, so GET /leads/{id} has activity.
 */
const INSERT_BATCH = `
WITH src AS (
  SELECT g.n, r.h,
    ($5::text[])[1 + r.h % cardinality($5::text[])] AS first_name,
    ($6::text[])[1 + (r.h / 101) % cardinality($6::text[])] AS last_name,
    ($7::text[])[1 + (r.h / 10007) % cardinality($7::text[])] AS postcode,
    ($8::text[])[1 + (r.h / 7) % cardinality($8::text[])] AS source,
    (r.h / 13) % 100 AS status_bucket,
    now() - interval '365 days' + (g.n::float8 / $4) * interval '365 days'
      - ((r.h / 17) % 3600) * interval '1 second' AS created_at
  FROM generate_series($2::int, $3::int) AS g(n)
  CROSS JOIN LATERAL (SELECT (hashint4extended(g.n, 42) & 2147483647)::int AS h) AS r
), typed AS (
  SELECT src.*,
    CASE WHEN status_bucket < 40 THEN 'NEW' WHEN status_bucket < 60 THEN 'CONTACTED'
         WHEN status_bucket < 72 THEN 'RESPONDED' WHEN status_bucket < 82 THEN 'QUALIFIED'
         WHEN status_bucket < 88 THEN 'BOOKED' WHEN status_bucket < 94 THEN 'WON' ELSE 'LOST' END AS status
  FROM src
), inserted AS (
  INSERT INTO leads (workspace_id, first_name, last_name, email, phone, postcode, status, source, follow_up,
                     needs_attention, consent_at, answers, archived_at, created_at, updated_at)
  SELECT $1::uuid, first_name, last_name, lower(first_name || '.' || last_name || '.' || n || '@example.com'),
    '+447' || (700000000 + n), postcode, status, source,
    CASE WHEN status = 'NEW' THEN 'NOT_STARTED' WHEN status IN ('CONTACTED', 'RESPONDED') THEN 'ACTIVE'
         ELSE 'STOPPED' END,
    status = 'RESPONDED' AND h % 3 = 0,
    created_at,
    jsonb_build_object('budget', ($9::text[])[1 + (h / 23) % cardinality($9::text[])],
                       'timeframe', ($10::text[])[1 + (h / 29) % cardinality($10::text[])]),
    CASE WHEN (h / 1009) % 100 < 5 THEN least(now(), created_at + interval '30 days') END,
    created_at,
    CASE WHEN status = 'NEW' THEN created_at
         ELSE least(now(), created_at + ((h / 19) % 30) * interval '1 day') END
  FROM typed
  RETURNING id, email, created_at
)
INSERT INTO messages (workspace_id, lead_id, channel, direction, status, body, at)
SELECT $1::uuid, i.id, (ARRAY['email', 'sms', 'whatsapp'])[1 + m % 3],
  CASE WHEN m % 2 = 1 THEN 'inbound' ELSE 'outbound' END,
  CASE WHEN m % 2 = 1 THEN 'received' ELSE 'delivered' END,
  ($11::text[])[1 + (k.n + m) % cardinality($11::text[])],
  least(now(), i.created_at + m * interval '2 hours')
FROM inserted i
CROSS JOIN LATERAL (SELECT substring(i.email FROM '\\.(\\d+)@')::int AS n) AS k
CROSS JOIN LATERAL generate_series(1, 1 + (k.n / 50) % 25) AS m
WHERE k.n % 50 = 0`;

export type SeedResult = { seeded: number; inserted: number; seconds: number };

async function countSeeded(db: DataSource, workspaceId: string): Promise<number> {
  const [row] = await db.query<{ n: number }[]>(
    'SELECT count(*)::int AS n FROM leads WHERE workspace_id = $1 AND source IS DISTINCT FROM $2',
    [workspaceId, POSTED_SOURCE],
  );
  return row!.n;
}

/**
 * Brings the workspace up to `target` seeded leads; a workspace that has them already is left alone.
 * One transaction: the trigram GIN index is dropped, the rows go in with set-based INSERT ... SELECT
 * batches, and the index is rebuilt once at the end (maintaining it row by row is what makes a naive
 * bulk load take hours). A run killed half-way rolls back to the index and rows it started with.
 */
export async function seedLeads(
  db: DataSource,
  workspaceId: string,
  target: number,
  log: Logger,
): Promise<SeedResult> {
  const have = await countSeeded(db, workspaceId);
  if (have >= target) {
    log.info(`workspace already holds ${have} seeded leads: reusing them`);
    await forgetEarlierPosts(db, workspaceId, log);
    return { seeded: have, inserted: 0, seconds: 0 };
  }
  const started = performance.now();
  log.info(`seeding leads ${have + 1}..${target}`);
  await db.transaction(async (m) => {
    await m.query(`SET LOCAL maintenance_work_mem = '1GB'`);
    const [index] = await m.query<{ indexdef: string }[]>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'leads_search'`,
    );
    if (!index) throw new Error('index leads_search is missing: has the leads migration run?');
    await m.query('DROP INDEX leads_search');
    for (let from = have + 1; from <= target; from += BATCH) {
      const to = Math.min(target, from + BATCH - 1);
      await m.query(INSERT_BATCH, [
        workspaceId,
        from,
        to,
        target,
        FIRST_NAMES,
        LAST_NAMES,
        POSTCODES,
        SOURCES,
        BUDGETS,
        TIMEFRAMES,
        MESSAGE_BODIES,
      ]);
      log.info(`  ${to}/${target} leads (${seconds(started)} s)`);
    }
    log.info('  rebuilding leads_search');
    await m.query(index.indexdef);
  });
  // Statistics, hint bits and the visibility map as autovacuum would leave a settled table: otherwise
  // the first minutes of a bench run on plans made for an empty table and rewrite pages as they read.
  await db.query('VACUUM (ANALYZE) leads');
  await db.query('VACUUM (ANALYZE) messages');
  const took = seconds(started);
  log.info(`seeded ${target - have} leads in ${took} s`);
  return { seeded: target, inserted: target - have, seconds: took };
}

/**
 * Every run starts from the seed: the leads earlier runs POSTed (with their touches, scores and
 * messages) are deleted and the table vacuumed. Left in place, each run added its POSTs to the newest
 * 30 days, and the analytics and search rows measured a workspace that grew from run to run (102,615
 * leads in 30 days after a few days of runs).
 */
async function forgetEarlierPosts(db: DataSource, workspaceId: string, log: Logger): Promise<void> {
  const started = performance.now();
  const [{ n }] = await db.query<[{ n: number }]>(
    `WITH gone AS (DELETE FROM leads WHERE workspace_id = $1 AND source = $2 RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [workspaceId, POSTED_SOURCE],
  );
  if (n === 0) return;
  await db.query('VACUUM (ANALYZE) leads');
  await db.query('VACUUM (ANALYZE) messages');
  log.info(`deleted the ${n} leads earlier runs posted, and vacuumed (${seconds(started)} s)`);
}

const seconds = (since: number) => Math.round((performance.now() - since) / 100) / 10;

/** `npm run bench -- seed-leads [--leads N]`: seeds ahead of time, then stops PostgreSQL. */
export async function main(args: string[]) {
  const { leads } = parseIntFlags(args, { leads: DEFAULT_LEADS }, 'npm run bench -- seed-leads [--leads N]');
  const log = benchLogger('seed');
  await withCleanup(log, async (stops) => {
    const { db } = await openBenchDatabase(log, stops);
    const result = await seedLeads(db, await benchWorkspace(db, leads), leads, log);
    console.log(JSON.stringify({ bench: 'seed-leads', ...result }));
  });
}
