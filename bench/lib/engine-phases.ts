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
  /**
   * The way back (cluster only): after three workers, two again, the floor again and one again, so that
   * where a phase falls in the run (the databases grow, checkpoints come) weighs as much on each count.
   */
  way_back: { two_workers: PathThroughput; floor: FloorFigures; one_worker: PathThroughput } | null;
};

type FloorFigures = EngineFigures['floor'];

/**
 * The cluster's phases, in an order that is its own mirror: one worker, the floor, two workers, three,
 * two again, the floor again, one again (each after its warm-up). On two cores more workers show what a
 * worker costs (the relays divide the rows: no start is made twice), not a doubling; the mirror puts the
 * counts and the floor at the same mean place in the run, so a drift over it (the databases grow,
 * checkpoints come) does not favour the first phase. Latency at 10/s follows the first phase; tracing's
 * phase and the one without search attributes follow the last, each priced against it.
 */
export async function clusterPhases(
  s: WebhookStack,
  flags: { events: number; 'latency-seconds': number },
  log: Logger,
): Promise<EngineFigures> {
  const floor = () =>
    temporalFloor(s.temporal.address, flags.events, flags['latency-seconds'], log, floorMeter(s));
  const throughputWith = async (workers: number) => {
    while (s.workers.length < workers) await s.addWorker();
    // The newest goes first: it holds the slots the phase's workspace falls in, as a relay that joined last would.
    while (s.workers.length > workers) await s.removeWorker(s.workers.at(-1)!);
    await warmUp(s, log);
    return (await pathThroughput(s, flags.events, log)).result;
  };
  const throughput = await throughputWith(1);
  const latency = await pathLatency(s, flags['latency-seconds'], log);
  const firstFloor = await floor();
  const twoWorkers = await throughputWith(2);
  const threeWorkers = await throughputWith(3);
  const twoWorkersBack = await throughputWith(2);
  const floorBack = await floor();
  const oneWorkerBack = await throughputWith(1);
  const traced = await tracedPhase(s, flags.events, log);
  const noSearchAttributes = await noSearchAttributesPhase(s, flags.events, log);
  return {
    engine: s.engine,
    history_shards: s.temporal.historyShards ?? null,
    throughput,
    latency: latency.result,
    floor: firstFloor,
    two_workers: twoWorkers,
    three_workers: threeWorkers,
    traced,
    no_search_attributes: noSearchAttributes,
    way_back: { two_workers: twoWorkersBack, floor: floorBack, one_worker: oneWorkerBack },
  };
}

/**
 * The workers replaced by one of these settings (added to the usual ones), warmed up: the last phases
 * each run one, and none follows that needs the usual worker back.
 */
async function aloneWith(s: WebhookStack, env: Record<string, string>, log: Logger) {
  while (s.workers.length > 0) await s.removeWorker(s.workers[0]!);
  const worker = await s.addWorker(env);
  await warmUp(s, log);
  return worker;
}

/**
 * What the delivery workflow's search attributes cost: the one worker replaced by one that starts
 * deliveries with `WEBHOOK_SEARCH_ATTRIBUTES=none`, and the throughput phase again: the last phase,
 * priced against the last one-worker phase of the usual settings (tracing's lies between them).
 */
async function noSearchAttributesPhase(s: WebhookStack, events: number, log: Logger) {
  await aloneWith(s, { WEBHOOK_SEARCH_ATTRIBUTES: 'none' }, log);
  return (await pathThroughput(s, events, log)).result;
}

/**
 * What tracing costs: the one worker replaced by one exporting every span (OTLP/HTTP to a collector on
 * loopback that drops them), and the throughput phase again; the worker is stopped before the
 * collector's count is read. The bench process, which commits the events, is not traced: this prices the
 * worker's spans and their export.
 */
async function tracedPhase(s: WebhookStack, events: number, log: Logger) {
  const sink = await startOtlpSink();
  try {
    const traced = await aloneWith(
      s,
      { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
      log,
    );
    const before = sink.received();
    const path = await pathThroughput(s, events, log);
    await s.removeWorker(traced);
    const after = sink.received();
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
