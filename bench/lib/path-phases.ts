import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import type { Logger } from '../../infra/logger';
import { checkDeliveries, waitForReceipts, type DeliveryFigures, type Expected } from './delivery-check';
import { latencyBreakdown, type LatencyBreakdown } from './latency-breakdown';
import { commitEvent, type Committed } from './outbox-load';
import { paced, withConcurrency } from './pacing';
import {
  perDelivery,
  readPgCounters,
  readStatements,
  resetStatements,
  type PgCostPerDelivery,
} from './pg-counters';
import type { DatabaseCosts } from './pg-databases';
import { processMeter, type CpuCosts, type Metered } from './process-meter';
import { readTemporalMetrics, temporalCosts, type TemporalCosts } from './temporal-metrics';
import type { WebhookStack } from './webhook-stack';

export const CONCURRENCY = 50;
export const STEADY_RATE = 10;
// A healthy path delivers something every few ms; a minute of nothing means the rest will not come.
const STALL_MS = 60_000;

export type PathThroughput = DeliveryFigures & {
  commit_seconds: number;
  statuses: Record<string, number>;
  pg_per_delivery: PgCostPerDelivery;
  costs: PathCosts;
};

/** What each part of the path spent per delivery in the throughput phase. */
export type PathCosts = {
  workers: number;
  /** From the first commit until every delivery has recorded. */
  cpu: CpuCosts;
  /** The same processes in the 11 s before the phase, with nothing to deliver: `cores` is their idle use. */
  idle_cpu: CpuCosts;
  /** The whole PostgreSQL server by database, over the same window as `pg_per_delivery`. */
  databases: DatabaseCosts;
  /** Sessions by database once every event was committed, the backlog still draining. */
  connections: Record<string, number>;
  /** The real server's own counters (its Prometheus page); none for the dev server. */
  temporal: TemporalCosts | null;
};
export type PathLatency = DeliveryFigures & {
  statuses: Record<string, number>;
  breakdown: LatencyBreakdown;
  /** At 10/s nothing queues: the Temporal server's persistence calls take what the database takes. */
  costs: Pick<PathCosts, 'cpu' | 'temporal'>;
};

const commitMany = async (s: WebhookStack, count: number, schedule: 'concurrent' | 'paced') => {
  const task = () => commitEvent(s.db, s.okWorkspace);
  return schedule === 'concurrent'
    ? await withConcurrency(count, CONCURRENCY, task)
    : await paced(STEADY_RATE, count, task);
};
const expectedOf = (commits: Committed[]) => commits.map((c): Expected => ({ id: c.id, t0: c.committedAt }));

const waitAll = (s: WebhookStack, expected: Expected[], what: string, log: Logger) =>
  waitForReceipts(s.receiver.inbox('ok'), expected, {
    what,
    log,
    stallMs: STALL_MS,
    gone: () => s.workers.map((w) => w.exitReason()).find(Boolean),
  });

/**
 * The processes a delivery passes through. The bench process plays the API: it commits each event
 * as an operation does (emitEvent in a transaction), and it is also the receiver, which verifies
 * every signature.
 */
const meteredOf = (s: WebhookStack): Record<string, Metered> => ({
  'bench (API + receiver)': { pid: process.pid },
  ...Object.fromEntries(s.workers.map((w, i) => [`worker ${i + 1}`, { pid: w.pid }])),
  'Temporal server': { pid: s.temporal.pid },
  PostgreSQL: { pid: s.postgres.pid, tree: true },
});

/** The delivery rows of these events by status: all SUCCEEDED once the activities have recorded. */
async function statusesOf(db: DataSource, ids: string[]): Promise<Record<string, number>> {
  const rows = await db.query<{ status: string; n: string }[]>(
    `SELECT status, count(*) AS n FROM webhook_deliveries WHERE event_id = ANY($1) GROUP BY status`,
    [ids],
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

// The receiver sees a delivery before the activity records it: wait for the records before counting writes.
async function settled(db: DataSource, ids: string[], received: number) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const statuses = await statusesOf(db, ids);
    if ((statuses.SUCCEEDED ?? 0) >= received || Date.now() > deadline) return statuses;
    await sleep(200);
  }
}

/** A few deliveries first, so the worker's first workflow task and connections are not measured. */
export async function warmUp(s: WebhookStack, log: Logger) {
  log.info('warm-up: 20 events through the whole path');
  const expected = expectedOf(await commitMany(s, 20, 'concurrent'));
  await waitAll(s, expected, 'warm-up deliveries', log);
  const { lost } = checkDeliveries(s.receiver.inbox('ok'), expected);
  if (lost > 0) throw new Error(`warm-up: ${lost} of 20 deliveries never arrived; the path is broken`);
}

/** N commits at concurrency 50, then the relay and workflows drain the backlog. */
export async function pathThroughput(s: WebhookStack, events: number, log: Logger) {
  const idle = processMeter(meteredOf(s), s.postgres.pid);
  const before = await readPgCounters(s.db);
  await resetStatements(s.db);
  const idleCpu = idle.per(1);
  const databasesBefore = await s.postgres.meter.read();
  const temporalBefore = s.temporal.metricsUrl ? await readTemporalMetrics(s.temporal.metricsUrl) : null;
  const cpu = processMeter(meteredOf(s), s.postgres.pid);
  log.info(`whole path throughput: committing ${events} events at concurrency ${CONCURRENCY}`);
  const expected = expectedOf(await commitMany(s, events, 'concurrent'));
  const connections = await s.postgres.meter.connections();
  const first = Math.min(...expected.map((e) => e.t0));
  const commitSeconds = (Math.max(...expected.map((e) => e.t0)) - first) / 1000;
  log.info(`committed in ${commitSeconds.toFixed(1)} s; waiting for every delivery`);
  await waitAll(s, expected, 'throughput deliveries', log);
  const figures = checkDeliveries(s.receiver.inbox('ok'), expected);
  const ids = expected.map((e) => e.id);
  const statuses = await settled(s.db, ids, figures.received);
  const n = Math.max(1, figures.received);
  const cpuCosts = cpu.per(n);
  const temporalAfter = s.temporal.metricsUrl ? await readTemporalMetrics(s.temporal.metricsUrl) : null;
  const after = await readPgCounters(s.db);
  const statements = await readStatements(s.db, n);
  const databasesAfter = await s.postgres.meter.read();
  const result: PathThroughput = {
    ...figures,
    commit_seconds: Math.round(commitSeconds * 100) / 100,
    statuses,
    pg_per_delivery: { ...perDelivery(before, after, n), ...(statements && { statements }) },
    costs: {
      workers: s.workers.length,
      cpu: cpuCosts,
      idle_cpu: idleCpu,
      databases: await s.postgres.meter.per(databasesBefore, databasesAfter, n),
      connections,
      temporal: temporalBefore && temporalAfter && temporalCosts(temporalBefore, temporalAfter, n),
    },
  };
  return { result, ids };
}

/** 10 commits a second, each on its own schedule, for `seconds`: the latency of an unloaded path. */
export async function pathLatency(s: WebhookStack, seconds: number, log: Logger) {
  log.info(`whole path latency: ${STEADY_RATE} events/s for ${seconds} s`);
  const temporalBefore = s.temporal.metricsUrl ? await readTemporalMetrics(s.temporal.metricsUrl) : null;
  const cpu = processMeter(meteredOf(s), s.postgres.pid);
  const commits = await commitMany(s, STEADY_RATE * seconds, 'paced');
  const expected = expectedOf(commits);
  await waitAll(s, expected, 'latency deliveries', log);
  const ids = expected.map((e) => e.id);
  const figures = checkDeliveries(s.receiver.inbox('ok'), expected);
  const statuses = await settled(s.db, ids, figures.received);
  const n = Math.max(1, figures.received);
  const cpuCosts = cpu.per(n);
  const temporalAfter = s.temporal.metricsUrl ? await readTemporalMetrics(s.temporal.metricsUrl) : null;
  const breakdown = await latencyBreakdown(s.db, s.receiver.inbox('ok'), commits);
  const result: PathLatency = {
    ...figures,
    statuses,
    breakdown,
    costs: {
      cpu: cpuCosts,
      temporal: temporalBefore && temporalAfter && temporalCosts(temporalBefore, temporalAfter, n),
    },
  };
  return { result, ids };
}
