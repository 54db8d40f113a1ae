import { loadavg } from 'node:os';
import { withCleanup } from '../tooling/cleanup';
import { parseIntFlags } from './lib/args';
import { runBaseline } from './lib/baseline-phases';
import { benchLogger } from './lib/log';
import { parkedPhase } from './lib/parked-phase';
import { pathLatency, pathThroughput, warmUp } from './lib/path-phases';
import { procMemory } from './lib/proc-memory';
import { temporalFloor } from './lib/temporal-floor';
import { startWebhookStack } from './lib/webhook-stack';
import { printWebhooksReport } from './lib/webhooks-report';

const USAGE = 'npm run bench -- webhooks [--events N] [--latency-seconds S] [--parked N (0 skips)]';

/**
 * `npm run bench -- webhooks`: operation -> outbox -> relay -> workflow -> receiver, against a bare
 * sign-and-POST loop and against Temporal alone, then the memory that parked retries cost. Progress on
 * stderr; the table, then one JSON line with every figure, on stdout. Exits 1 when any delivery (or a
 * floor workflow's activity) was lost.
 */
export async function main(args: string[]) {
  const flags = parseIntFlags(args, { events: 3000, 'latency-seconds': 30, parked: 10_000 }, USAGE, [
    'parked',
  ]);
  const log = benchLogger('webhooks');
  const loadAtStart = Math.round(loadavg()[0]! * 100) / 100;
  await withCleanup(log, async (stops) => {
    const s = await startWebhookStack(log, stops);
    const memory = () => ({ worker: procMemory(s.worker.pid), temporal: procMemory(s.temporal.pid) });
    const memoryAtStart = memory();
    await warmUp(s, log);
    const throughput = await pathThroughput(s, flags.events, log);
    const latency = await pathLatency(s, flags['latency-seconds'], log);
    const memoryAfterLatency = memory();
    const baseline = await runBaseline(s, throughput.ids, latency.ids, log);
    // Before the parked phase: its deliveries retry 30 s after they park, and would load the floor.
    const floor = await temporalFloor(s.temporal.address, flags.events, flags['latency-seconds'], log);
    const parked = flags.parked > 0 ? await parkedPhase(s, flags.parked, log) : null;
    const [size] = await s.db.query<{ bytes: string }[]>(
      `SELECT round(avg(octet_length(envelope))) AS bytes FROM events WHERE id = ANY($1)`,
      [throughput.ids],
    );
    const { lost } = printWebhooksReport({
      settings: { events: flags.events, latency_seconds: flags['latency-seconds'], parked: flags.parked },
      envelope_bytes: Number(size?.bytes),
      path: { throughput: throughput.result, latency: latency.result },
      baseline,
      floor,
      memory_at_start: memoryAtStart,
      memory_after_latency: memoryAfterLatency,
      parked,
      load_average: { start: loadAtStart, end: Math.round(loadavg()[0]! * 100) / 100 },
      bad_signatures: Object.fromEntries(
        (['ok', 'fail', 'baseline'] as const).map((p) => [p, s.receiver.inbox(p).badSignatures]),
      ),
    });
    if (lost > 0) process.exitCode = 1;
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
    log.info('stopping the worker, Temporal and PostgreSQL');
  });
}
