import type { Logger } from '../../infra/logger';
import type { DeliveryFigures } from './delivery-check';
import { pathLatency, pathThroughput, warmUp, type PathLatency, type PathThroughput } from './path-phases';
import { startOtlpSink } from './otlp-sink';
import { temporalFloor } from './temporal-floor';
import type { CpuCosts } from './process-meter';
import type { Engine, WebhookStack } from './webhook-stack';

/** What the floor runs on, named as the path's columns name them: the bench's process is its worker. */
export const floorMeter = (s: WebhookStack) => ({
  named: {
    'bench (API + receiver)': { pid: process.pid },
    'Temporal server': { pid: s.temporal.pid },
    PostgreSQL: { pid: s.postgres.pid, tree: true },
  },
  postmaster: s.postgres.pid,
});

/** One engine's figures: the whole path, Temporal alone on it, and (cluster) a second and third worker's effect. */
export type EngineFigures = {
  engine: Engine;
  history_shards: number | null;
  throughput: PathThroughput;
  latency: PathLatency;
  floor: { throughput: DeliveryFigures; latency: DeliveryFigures; cpu: CpuCosts | null };
  /** The throughput phase again with a second worker process on the same task queue (cluster only). */
  two_workers: PathThroughput | null;
  /** And with a third (cluster only): the relays divide the rows, so each start is made once. */
  three_workers: PathThroughput | null;
  /** The throughput phase with one worker again, tracing on (exported to a collector on loopback; cluster only). */
  traced: { path: PathThroughput; exports: number; export_bytes_per_delivery: number } | null;
  /** The throughput phase with one worker again, deliveries started without search attributes (cluster only). */
  no_search_attributes: PathThroughput | null;
};

/**
 * The cluster's phases, as the dev server's run: warm-up, throughput, latency at 10/s with one worker;
 * the throughput phase again with the deliveries' search attributes off; the Temporal floor; tracing's
 * phase; then a second worker process joins, and after its own warm-up the throughput phase runs again;
 * then a third. On two cores more workers show what a worker costs (the relays divide the rows: no
 * start is made twice), not a doubling.
 */
export async function clusterPhases(
  s: WebhookStack,
  flags: { events: number; 'latency-seconds': number },
  log: Logger,
): Promise<EngineFigures> {
  await warmUp(s, log);
  const throughput = await pathThroughput(s, flags.events, log);
  const latency = await pathLatency(s, flags['latency-seconds'], log);
  const noSearchAttributes = await noSearchAttributesPhase(s, flags.events, log);
  const floor = await temporalFloor(
    s.temporal.address,
    flags.events,
    flags['latency-seconds'],
    log,
    floorMeter(s),
  );
  const traced = await tracedPhase(s, flags.events, log);
  await s.addWorker();
  await warmUp(s, log);
  const twoWorkers = await pathThroughput(s, flags.events, log);
  await s.addWorker();
  await warmUp(s, log);
  const threeWorkers = await pathThroughput(s, flags.events, log);
  return {
    engine: s.engine,
    history_shards: s.temporal.historyShards ?? null,
    throughput: throughput.result,
    latency: latency.result,
    floor,
    two_workers: twoWorkers.result,
    three_workers: threeWorkers.result,
    traced,
    no_search_attributes: noSearchAttributes,
  };
}

/**
 * What the delivery workflow's search attributes cost: the one worker replaced by one that starts
 * deliveries with `WEBHOOK_SEARCH_ATTRIBUTES=none`, and the throughput phase again. It runs next to the
 * path's own, so Temporal's visibility table has grown only by the latency phase's rows between the
 * two. Its worker stays through the floor, which does not use it; the traced phase then replaces it with
 * one of the usual settings, as it replaces whichever it finds.
 */
async function noSearchAttributesPhase(s: WebhookStack, events: number, log: Logger) {
  await s.removeWorker(s.workers[0]!);
  await s.addWorker({ WEBHOOK_SEARCH_ATTRIBUTES: 'none' });
  await warmUp(s, log);
  return (await pathThroughput(s, events, log)).result;
}

/**
 * What tracing costs: the one worker replaced by one exporting every span (OTLP/HTTP to a collector on
 * loopback that drops them), the throughput phase again, then a worker of the usual settings. The bench
 * process, which commits the events, is not traced: this prices the worker's spans and their export.
 */
async function tracedPhase(s: WebhookStack, events: number, log: Logger) {
  const sink = await startOtlpSink();
  try {
    await s.removeWorker(s.workers[0]!);
    const traced = await s.addWorker({
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    });
    await warmUp(s, log);
    const before = sink.received();
    const path = await pathThroughput(s, events, log);
    await s.removeWorker(traced);
    const after = sink.received();
    await s.addWorker();
    await warmUp(s, log);
    const n = Math.max(1, path.result.received);
    return {
      path: path.result,
      exports: after.exports - before.exports,
      export_bytes_per_delivery: Math.round((after.bytes - before.bytes) / n),
    };
  } finally {
    await sink.close();
  }
}
