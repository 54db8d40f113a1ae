import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { Worker } from '@temporalio/worker';
import { WORKFLOW_CACHE_SIZE } from '../../infra/config';
import type { Logger } from '../../infra/logger';
import { connectWorker } from '../../worker/worker';
import type { FloorActivities } from './floor-workflow';
import { paced, withConcurrency } from './pacing';
import { CONCURRENCY, STEADY_RATE } from './path-phases';
import { percentile } from './stats';

export type FloorFigures = {
  workflows: number;
  /** Workflows whose activity never ran. */
  lost: number;
  seconds: number;
  per_second: number;
  p50_ms: number;
  p99_ms: number;
};

const round = (x: number) => Math.round(x * 100) / 100;
// A workflow of this kind finishes in milliseconds; ten seconds without one means the rest will not come.
const STALL_MS = 10_000;

/**
 * Temporal alone, in the same run as the whole path and on the same dev server: workflows started as
 * the relay starts deliveries (eagerly, from a client on the worker's own connection, the worker's
 * cache and task slots) that run one local activity doing nothing. No PostgreSQL, no HTTP: whatever
 * the whole path cannot reach here, a workflow per delivery cannot reach on this machine. First
 * `count` at concurrency 50 (start → last activity), then 10/s for `seconds` (start request →
 * activity, the whole path's commit → attempt start without the relay).
 */
export async function temporalFloor(
  address: string,
  count: number,
  seconds: number,
  log: Logger,
): Promise<{ throughput: FloorFigures; latency: FloorFigures }> {
  const arrivedAt = new Map<string, number>();
  const activities: FloorActivities = {
    arrived: () => {
      arrivedAt.set(Context.current().info.workflowExecution?.workflowId ?? '', performance.now());
      return Promise.resolve();
    },
  };
  // The production worker's runtime (its logger, its metrics exporter), so the floor pays what it pays.
  const connection = await connectWorker(address, log);
  const taskQueue = `bench-temporal-floor-${Date.now()}`;
  log.info('Temporal floor: bundling its workflow');
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: path.join(__dirname, 'floor-workflow.ts'),
    activities,
    maxCachedWorkflows: WORKFLOW_CACHE_SIZE,
    maxConcurrentWorkflowTaskExecutions: WORKFLOW_CACHE_SIZE,
  });
  const running = worker.run();
  const client = new Client({ connection });
  const start = async (id: string) => {
    const t0 = performance.now();
    await client.workflow.start('temporalFloorWorkflow', {
      taskQueue,
      workflowId: id,
      requestEagerStart: true,
    });
    return { id, t0 };
  };
  const measure = async (
    what: string,
    n: number,
    run: (task: (i: number) => Promise<{ id: string; t0: number }>) => Promise<{ id: string; t0: number }[]>,
  ) => {
    const started = await run((i) => start(`bench-floor-${what}-${i}-${taskQueue}`));
    let have = 0;
    let lastProgress = Date.now();
    for (;;) {
      const now = started.filter((s) => arrivedAt.has(s.id)).length;
      if (now > have) [have, lastProgress] = [now, Date.now()];
      if (have === n || Date.now() - lastProgress > STALL_MS) break;
      await sleep(50);
    }
    const waits = started.filter((s) => arrivedAt.has(s.id)).map((s) => arrivedAt.get(s.id)! - s.t0);
    const sorted = Float64Array.from(waits).sort();
    const first = Math.min(...started.map((s) => s.t0));
    const last = Math.max(...started.map((s) => arrivedAt.get(s.id) ?? 0));
    const secs = (last - first) / 1000;
    return {
      workflows: n,
      lost: n - waits.length,
      seconds: round(secs),
      per_second: round(waits.length / secs),
      p50_ms: round(percentile(sorted, 50)),
      p99_ms: round(percentile(sorted, 99)),
    };
  };
  try {
    await measure('warm-up', 20, (task) => withConcurrency(20, CONCURRENCY, task));
    log.info(`Temporal floor throughput: ${count} workflows at concurrency ${CONCURRENCY}`);
    const throughput = await measure('throughput', count, (task) =>
      withConcurrency(count, CONCURRENCY, task),
    );
    log.info(`Temporal floor latency: ${STEADY_RATE} workflows/s for ${seconds} s`);
    const n = STEADY_RATE * seconds;
    const latency = await measure('latency', n, (task) => paced(STEADY_RATE, n, task));
    return { throughput, latency };
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
  }
}
