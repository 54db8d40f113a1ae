import type { Logger } from '../../infra/logger';
import type { DeliveryFigures } from './delivery-check';
import { pathLatency, pathThroughput, warmUp, type PathLatency, type PathThroughput } from './path-phases';
import { temporalFloor } from './temporal-floor';
import type { Engine, WebhookStack } from './webhook-stack';

/** One engine's figures: the whole path, Temporal alone on it, and (cluster) a second worker's effect. */
export type EngineFigures = {
  engine: Engine;
  history_shards: number | null;
  throughput: PathThroughput;
  latency: PathLatency;
  floor: { throughput: DeliveryFigures; latency: DeliveryFigures };
  /** The throughput phase again with a second worker process on the same task queue (cluster only). */
  two_workers: PathThroughput | null;
};

/**
 * The cluster's phases, as the dev server's run: warm-up, throughput, latency at 10/s and the
 * Temporal floor with one worker; then a second worker process joins, and after its own warm-up the
 * throughput phase runs again. On two cores the second worker shows which resource runs out, not a
 * doubling.
 */
export async function clusterPhases(
  s: WebhookStack,
  flags: { events: number; 'latency-seconds': number },
  log: Logger,
): Promise<EngineFigures> {
  await warmUp(s, log);
  const throughput = await pathThroughput(s, flags.events, log);
  const latency = await pathLatency(s, flags['latency-seconds'], log);
  const floor = await temporalFloor(s.temporal.address, flags.events, flags['latency-seconds'], log);
  await s.addWorker();
  await warmUp(s, log);
  const twoWorkers = await pathThroughput(s, flags.events, log);
  return {
    engine: s.engine,
    history_shards: s.temporal.historyShards ?? null,
    throughput: throughput.result,
    latency: latency.result,
    floor,
    two_workers: twoWorkers.result,
  };
}
