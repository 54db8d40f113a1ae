import { availableParallelism, loadavg } from 'node:os';
import { createStops, labelled, withCleanup } from '../tooling/cleanup';
import { parseIntFlags, UsageError } from './lib/args';
import { runBaseline } from './lib/baseline-phases';
import { clusterPhases, floorMeter, type EngineFigures } from './lib/engine-phases';
import { engineFaults } from './lib/engines-report';
import { benchLogger } from './lib/log';
import { noisyPhase, printNoisyReport } from './lib/noisy-phase';
import { parkedPhase } from './lib/parked-phase';
import { pathLatency, pathThroughput, warmUp } from './lib/path-phases';
import { procMemory } from './lib/proc-memory';
import { temporalFloor } from './lib/temporal-floor';
import { deployedHistoryShards, startWebhookStack, type Engine } from './lib/webhook-stack';
import { printWebhooksReport } from './lib/webhooks-report';
import { profiledWorker, workerThreadsMeter, type WorkerCpuByPart } from './lib/worker-profile';

const USAGE =
  'npm run bench -- webhooks [--engine dev|cluster] [--events N] [--latency-seconds S] [--parked N (0 skips)] ' +
  "[--history-shards N (docker-compose.yml's by default)] [--profile-worker] | webhooks --noisy [--events N (10000)] [--burst-writers N (1)]";

/** `--engine dev|cluster` taken out of the arguments; the rest are integer flags. */
function engineFlag(args: string[]): { engine: Engine; rest: string[] } {
  const at = args.indexOf('--engine');
  if (at < 0) return { engine: 'dev', rest: args };
  const engine = args[at + 1];
  if (engine !== 'dev' && engine !== 'cluster') throw new UsageError('--engine is dev or cluster', USAGE);
  return { engine, rest: [...args.slice(0, at), ...args.slice(at + 2)] };
}

/**
 * `npm run bench -- webhooks`: operation -> outbox -> relay -> workflow -> receiver, against a bare
 * sign-and-POST loop and against Temporal alone, then the memory that parked retries cost, with what
 * each process spends per delivery. `--engine cluster` then runs the path again on the real Temporal
 * server on PostgreSQL, with one worker and with two, beside the dev server's figures. Progress on
 * stderr; the tables, then one JSON line with every figure, on stdout. Exits 1 when any delivery (or
 * a floor workflow's activity) was lost, or a delivery arrived twice, on either engine.
 * `--profile-worker` then runs the throughput phase once more with the worker under `--cpu-prof`, and
 * splits its CPU per delivery by part (bench/lib/worker-profile.ts).
 */
export async function main(args: string[]) {
  if (args.includes('--noisy')) return noisy(args.filter((a) => a !== '--noisy'));
  const profileWorker = args.includes('--profile-worker');
  const { engine, rest } = engineFlag(args.filter((a) => a !== '--profile-worker'));
  const flags = parseIntFlags(
    rest,
    { events: 3000, 'latency-seconds': 30, parked: 10_000, 'history-shards': deployedHistoryShards() },
    USAGE,
    ['parked'],
  );
  const log = benchLogger('webhooks');
  const loadAtStart = Math.round(loadavg()[0]! * 100) / 100;
  await withCleanup(log, async (outer) => {
    // The dev server's stack stops before the cluster's starts, so neither loads the other's phases.
    const stops = createStops(log);
    outer.push(labelled('the dev server stack', stops.stopAll));
    const s = await startWebhookStack(log, stops);
    const memory = () => ({ worker: procMemory(s.worker.pid), temporal: procMemory(s.temporal.pid) });
    const memoryAtStart = memory();
    await warmUp(s, log);
    // By thread, for `--profile-worker` to set its profiled run beside.
    const workerThreads = profileWorker ? workerThreadsMeter(s.worker.pid) : null;
    const throughput = await pathThroughput(s, flags.events, log);
    const unprofiledWorker = workerThreads?.per(throughput.result.received);
    const latency = await pathLatency(s, flags['latency-seconds'], log);
    const memoryAfterLatency = memory();
    const baseline = await runBaseline(s, throughput.ids, latency.ids, log);
    // Before the parked phase: its deliveries retry 30 s after they park, and would load the floor.
    const floor = await temporalFloor(
      s.temporal.address,
      flags.events,
      flags['latency-seconds'],
      log,
      floorMeter(s),
    );
    const parked = flags.parked > 0 ? await parkedPhase(s, flags.parked, log) : null;
    const [size] = await s.db.query<{ bytes: string }[]>(
      `SELECT round(avg(octet_length(envelope))) AS bytes FROM events WHERE id = ANY($1)`,
      [throughput.ids],
    );
    const badSignatures = (['ok', 'fail', 'baseline'] as const).map((p): [string, number] => [
      p,
      s.receiver.inbox(p).badSignatures,
    ]);
    let workerCpuByPart: WorkerCpuByPart | null = null;
    if (unprofiledWorker) {
      await stops.stopAll();
      workerCpuByPart = await profiledWorker(log, outer, flags.events, unprofiledWorker);
    }
    let cluster: EngineFigures | null = null;
    if (engine === 'cluster') {
      await stops.stopAll();
      const c = await startWebhookStack(log, outer, 'cluster', flags['history-shards']);
      cluster = await clusterPhases(c, flags, log);
      badSignatures.push(['cluster ok', c.receiver.inbox('ok').badSignatures]);
    }
    const { lost } = printWebhooksReport({
      settings: {
        events: flags.events,
        latency_seconds: flags['latency-seconds'],
        parked: flags.parked,
        engine,
        history_shards: flags['history-shards'],
      },
      envelope_bytes: Number(size?.bytes),
      path: { throughput: throughput.result, latency: latency.result },
      baseline,
      floor,
      memory_at_start: memoryAtStart,
      memory_after_latency: memoryAfterLatency,
      parked,
      load_average: { start: loadAtStart, end: Math.round(loadavg()[0]! * 100) / 100 },
      bad_signatures: Object.fromEntries(badSignatures),
      cluster,
      worker_cpu_by_part: workerCpuByPart,
    });
    const doubled = throughput.result.duplicates + latency.result.duplicates;
    const clusterFaults = cluster ? engineFaults(cluster) : { lost: 0, doubled: 0 };
    if (lost + clusterFaults.lost > 0) process.exitCode = 1;
    if (clusterFaults.lost > 0) log.error(`${clusterFaults.lost} deliveries never arrived on the cluster`);
    if (doubled + clusterFaults.doubled > 0) {
      log.error(
        `${doubled} deliveries arrived twice on the dev server, ${clusterFaults.doubled} on the cluster`,
      );
      process.exitCode = 1;
    }
    const profiledFaults = workerCpuByPart ? workerCpuByPart.run.lost + workerCpuByPart.run.duplicates : 0;
    if (profiledFaults > 0) {
      log.error(`${profiledFaults} deliveries of the profiled run were lost or arrived twice`);
      process.exitCode = 1;
    }
    if (parked && parked.sent_twice > 0) {
      log.error(`${parked.sent_twice} attempts of parked deliveries reached the receiver twice`);
      process.exitCode = 1;
    }
    if (parked && !parked.completed) {
      log.error(
        `only ${parked.parked} of ${parked.requested} deliveries parked: the memory figure is partial`,
      );
      process.exitCode = 1;
    }
    log.info('stopping the workers, Temporal and PostgreSQL');
  });
}

/**
 * `npm run bench -- webhooks --noisy`: the noisy neighbour on the dev server with fairness on. Workspace
 * B sends 5 events a second alone, then beside workspace A committing `--events` (10,000) at full speed
 * from `--burst-writers` (1) connections;
 * B's p50/p99 in both, in one run. Exits 1 when a delivery was lost or doubled.
 */
async function noisy(args: string[]) {
  const flags = parseIntFlags(args, { events: 10_000, 'burst-writers': 1 }, USAGE);
  const log = benchLogger('webhooks');
  const loadAtStart = Math.round(loadavg()[0]! * 100) / 100;
  await withCleanup(log, async (outer) => {
    const s = await startWebhookStack(log, outer);
    await warmUp(s, log);
    const figures = await noisyPhase(s, flags.events, flags['burst-writers'], log);
    printNoisyReport(figures);
    const load_average = { start: loadAtStart, end: Math.round(loadavg()[0]! * 100) / 100 };
    console.log(
      JSON.stringify({
        bench: 'webhooks',
        phase: 'noisy',
        cpus: availableParallelism(),
        load_average,
        ...figures,
      }),
    );
    const all = [figures.quiet_alone, figures.quiet_during_burst, figures.burst];
    if (all.some((d) => d.lost > 0 || d.duplicates > 0)) {
      log.error('a delivery was lost or arrived twice');
      process.exitCode = 1;
    }
    log.info('stopping the worker, Temporal and PostgreSQL');
  });
}
