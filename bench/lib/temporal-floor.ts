import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { Worker } from '@temporalio/worker';
import { WORKFLOW_CACHE_SIZE, WORKFLOW_TASK_SLOTS } from '../../infra/config';
import type { Logger } from '../../infra/logger';
import { connectWorker } from '../../worker/worker';
import { checkDeliveries, waitForReceipts, type DeliveryFigures, type Expected } from './delivery-check';
import type { FloorActivities } from './floor-workflow';
import { paced, withConcurrency } from './pacing';
import { processMeter, type CpuCosts, type Metered } from './process-meter';
import { CONCURRENCY, STEADY_RATE } from './path-phases';
import { addReceipt, type Inbox } from './webhook-receiver';

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
  /**
   * The processes the floor runs on, metered over its throughput phase as the path's are: the bench
   * (the floor's worker and client), the Temporal server, PostgreSQL.
   */
  meter?: { named: Record<string, Metered>; postmaster: number },
): Promise<{ throughput: DeliveryFigures; latency: DeliveryFigures; cpu: CpuCosts | null }> {
  // Each activity run is a receipt, by workflow id: the path's own checks count and time them.
  const inbox: Inbox = { byEvent: new Map(), requests: 0, badSignatures: 0 };
  const activities: FloorActivities = {
    arrived: () => {
      const { workflowExecution, attempt } = Context.current().info;
      inbox.requests += 1;
      addReceipt(inbox, workflowExecution?.workflowId ?? '', {
        attempt,
        at: performance.now(),
        wall: Date.now(),
      });
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
    maxConcurrentWorkflowTaskExecutions: WORKFLOW_TASK_SLOTS,
  });
  const running = worker.run();
  const client = new Client({ connection });
  const start = async (id: string): Promise<Expected> => {
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
    run: (task: (i: number) => Promise<Expected>) => Promise<Expected[]>,
  ): Promise<DeliveryFigures> => {
    const expected = await run((i) => start(`bench-floor-${what}-${i}-${taskQueue}`));
    await waitForReceipts(inbox, expected, {
      what: `Temporal floor ${what}`,
      log,
      stallMs: STALL_MS,
      gone: () => undefined,
    });
    return checkDeliveries(inbox, expected);
  };
  try {
    await measure('warm-up', (task) => withConcurrency(20, CONCURRENCY, task));
    log.info(`Temporal floor throughput: ${count} workflows at concurrency ${CONCURRENCY}`);
    const cpu = meter && processMeter(meter.named, meter.postmaster);
    const throughput = await measure('throughput', (task) => withConcurrency(count, CONCURRENCY, task));
    const cpuCosts = cpu ? cpu.per(Math.max(1, throughput.received)) : null;
    log.info(`Temporal floor latency: ${STEADY_RATE} workflows/s for ${seconds} s`);
    const n = STEADY_RATE * seconds;
    const latency = await measure('latency', (task) => paced(STEADY_RATE, n, task));
    return { throughput, latency, cpu: cpuCosts };
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
  }
}
