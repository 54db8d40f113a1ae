import { expect, type Fault, type FaultContext } from './fault';
import { within } from '../lib/within';

const CODES = { 'before-start': 86, 'before-mark': 87 } as const;

/**
 * The relay dying at a point of its pass (RELAY_CRASH_AT): `before-start` between reading due
 * deliveries and starting their workflows (they must be started by the next worker), `before-mark`
 * between starting a workflow and remembering it (the next worker's start is refused by Temporal:
 * never two runs). The worker is stopped gracefully first, as a deploy would, and started again after.
 */
export const relayCrash = (points: (keyof typeof CODES)[]): Fault => ({
  name: `relay crash ${points.join(' + ')}`,
  run: async (ctx) => {
    const checks = [];
    const figures: Record<string, unknown> = {};
    for (const point of points) {
      const seen = await crashAt(ctx, point);
      checks.push(
        expect(
          `the relay exited at ${point} (code ${CODES[point]})`,
          seen.code === CODES[point],
          `exit ${seen.code ?? seen.signal}; ${seen.unstarted} deliveries left unstarted`,
        ),
      );
      figures[`unstarted_after_${point.replace('-', '_')}`] = seen.unstarted;
    }
    return { injected: `RELAY_CRASH_AT=${points.join(', then ')}`, checks, figures };
  },
});

async function crashAt({ stack, timeline, log }: FaultContext, point: keyof typeof CODES) {
  await stack.worker.stop();
  log.info(`starting a worker whose relay exits at ${point}`);
  // It runs workflows too until it exits, so its exit may cut an attempt like any crash.
  const back = timeline.open('worker_exit');
  const doomed = await stack.worker.startDoomed(() => stack.spawnWorker({ RELAY_CRASH_AT: point }));
  const exit = await within(`the relay to exit at ${point}`, 120_000, doomed.exit);
  const [{ n }] = await stack.db.query<[{ n: number }]>(
    `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'PENDING' AND workflow_started_at IS NULL`,
  );
  log.info(`the relay exited (${exit.code ?? exit.signal}); starting a normal worker`);
  await stack.worker.start();
  back();
  return { code: exit.code, signal: exit.signal, unstarted: n };
}
