import { randomUUID } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { readTemporalMetrics, temporalCosts, type TemporalReading } from '../../bench/lib/temporal-metrics';
import { emitEvent } from '../../domain/kernel/events';
import { deliveryFanOut } from '../../domain/webhooks/fan-out';
import { waitFor } from '../../tooling/processes';
import { OVERLOAD_EVENT_TYPE, type ChaosStack } from '../lib/stack';
import { expect, type Fault } from './fault';

/** Saturated: a shard write waits this long on average for its shard's semaphore (issue 57). */
const SATURATED_WAIT_MS = 200;
/** How long the cluster is held past saturation, from the first window over the line. */
const HOLD_MS = 60_000;
/** The longest the drive may take to get there. */
const RAMP_MS = 60_000;
/** Shard waits are read from the server's metrics every window. */
const WINDOW_MS = 5_000;
/**
 * Events committed and not yet received everywhere that the drive keeps up at first (each is a delivery
 * to each overload endpoint): more than the relays start at once (25 per endpoint), so Temporal always
 * has all it will take and the rest wait in the outbox, as a burst does. How hard that pushes the shards
 * depends on the machine's hour, so the drive adapts: every window under the line (or near it) raises it
 * by half, up to MAX_BACKLOG; a window far over lowers it. A fixed rate would either fall short of
 * saturation or pile up minutes of backlog to drain.
 */
const BACKLOG = 100;
const MAX_BACKLOG = 400;
const MIN_BACKLOG = 50;

/** Commits at once: each is one operation's transaction, as the API makes them. */
const LANES = 4;
/** After the drive, how long everything committed may take to arrive. */
const DRAIN_MS = 300_000;

const round1 = (x: number) => Math.round(x * 10) / 10;

/** An overload event committed as an operation commits one: the event and its deliveries, in one transaction. */
async function commitEvent(stack: ChaosStack): Promise<string> {
  const campaignId = randomUUID();
  return stack.db.transaction((m) =>
    emitEvent(
      m,
      deliveryFanOut,
      stack.main.workspaceId,
      OVERLOAD_EVENT_TYPE,
      { type: 'campaign', id: campaignId },
      {
        campaign_id: campaignId,
        name: 'chaos overload',
        reason: 'person',
        detail: '',
        sends: 0,
        hard_bounces: 0,
        complaints: 0,
      },
    ),
  );
}

/** Each worker's count of attempts that found another run of theirs holding the delivery, by what they found. */
async function reruns(stack: ChaosStack): Promise<Record<'in_flight' | 'expired', number>> {
  const total = { in_flight: 0, expired: 0 };
  for (const w of stack.workers) {
    const text = await (await fetch(w.metricsUrl)).text().catch(() => '');
    for (const found of ['in_flight', 'expired'] as const) {
      const m = new RegExp(`^leads_webhook_attempt_reruns_total\\{found="${found}"\\} (\\S+)$`, 'm').exec(
        text,
      );
      total[found] += Number(m?.[1] ?? 0);
    }
  }
  return total;
}

/** Workflow tasks the server timed out (its timer queue's `start_to_close_timeout` for them), so far. */
async function taskTimeouts(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return text
    .split('\n')
    .filter(
      (l) =>
        l.startsWith('start_to_close_timeout{') &&
        l.includes('operation="TimerActiveTaskWorkflowTaskTimeout"'),
    )
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/** Lines matching `pattern` that the workers' logs gained since `from` (their sizes then). */
async function logLines(stack: ChaosStack, from: number[], pattern: RegExp): Promise<number> {
  let n = 0;
  for (const [i, w] of stack.workers.entries()) {
    const file = await open(w.log, 'r');
    try {
      const { size } = await file.stat();
      const { buffer, bytesRead } = await file.read(
        Buffer.alloc(size - from[i]!),
        0,
        size - from[i]!,
        from[i],
      );
      n += buffer
        .subarray(0, bytesRead)
        .toString('utf8')
        .split('\n')
        .filter((l) => pattern.test(l)).length;
    } finally {
      await file.close();
    }
  }
  return n;
}

/**
 * The 4-shard cluster driven past saturation (issue 57): events for the overload endpoints committed
 * into the main workspace as fast as the backlog allows, until a shard write waits over 200 ms for its
 * shard (the server's `semaphore_latency` for history, as the bench reads it), then held there for a
 * minute; then every delivery must arrive, once. Under this load workflow tasks time out while shard
 * writes queue, and the SDK runs an attempt again while its first run's POST is out: the attempt's
 * claim must keep the second from sending.
 */
export const overload = (round: number, rounds: number): Fault => ({
  name: rounds > 1 ? `overload, round ${round} of ${rounds}` : 'overload',
  run: async ({ stack, log }) => {
    const metricsUrl = stack.temporal.metricsUrl;
    if (!metricsUrl) throw new Error('the overload fault needs the real Temporal server (--cluster)');
    const began = Date.now();
    const logSizes = await Promise.all(stack.workers.map(async (w) => (await stat(w.log)).size));
    const rerunsBefore = await reruns(stack);
    const timeoutsBefore = await taskTimeouts(metricsUrl);
    const paths = stack.overloadPaths;
    const receiptsOf = (id: string) => paths.map((p) => stack.receiver.overload.get(`${p} ${id}`) ?? []);
    // Received: every overload endpoint answered one of its POSTs 2xx over a live connection.
    const received = (id: string) => receiptsOf(id).every((r) => r.some((x) => x.accepted));

    const committed: string[] = [];
    const pending = new Set<string>();
    let backlog = BACKLOG;
    let driving = true;
    let commitFailures = 0;
    const lane = async () => {
      while (driving) {
        if (pending.size >= backlog) {
          for (const id of pending) if (received(id)) pending.delete(id);
          // The load's own pacing: look again in a moment.
          if (pending.size >= backlog) await sleep(20);
          continue;
        }
        try {
          const id = await commitEvent(stack);
          committed.push(id);
          pending.add(id);
        } catch (err) {
          commitFailures += 1;
          log.warn(`overload: a commit failed: ${String(err)}`);
          await sleep(200);
        }
      }
    };
    log.info(
      `overload: keeping ${BACKLOG} events outstanding (more while under the line) until shard writes wait over ${SATURATED_WAIT_MS} ms`,
    );
    const lanes = Array.from({ length: LANES }, lane);

    // Windows of the server's counters: the ramp until one is saturated, then the held minute.
    const windows: { wait_ms: number; saturated: boolean }[] = [];
    const backlogs: number[] = [];
    let previous: TemporalReading = await readTemporalMetrics(metricsUrl);
    let heldFrom: { at: number; reading: TemporalReading; receivedBefore: number } | undefined;
    let ended: TemporalReading | undefined;
    const receivedSoFar = () => committed.filter(received).length;
    while (true) {
      const windowStart = { at: Date.now(), reading: previous, receivedBefore: receivedSoFar() };
      // Measuring over a window, not waiting for work.
      await sleep(WINDOW_MS);
      const now = await readTemporalMetrics(metricsUrl);
      const wait = temporalCosts(previous, now, 1).shard_io_wait_ms_mean;
      windows.push({ wait_ms: Math.round(wait), saturated: wait > SATURATED_WAIT_MS });
      previous = ended = now;
      log.info(
        `overload: shard writes waited ${Math.round(wait)} ms on average over ${WINDOW_MS / 1000} s, ${backlog} events outstanding`,
      );
      // Harder while under the line or near it, gentler when far over it (the drain grows with it).
      if (wait < SATURATED_WAIT_MS * 1.5) backlog = Math.min(MAX_BACKLOG, Math.round(backlog * 1.5));
      else if (wait > SATURATED_WAIT_MS * 3) backlog = Math.max(MIN_BACKLOG, Math.round(backlog * 0.8));
      backlogs.push(backlog);
      if (!heldFrom) {
        if (wait > SATURATED_WAIT_MS) heldFrom = windowStart;
        else if (Date.now() - began > RAMP_MS) break;
      } else if (Date.now() - heldFrom.at >= HOLD_MS) break;
    }
    driving = false;
    await Promise.all(lanes);
    const heldMs = heldFrom ? Date.now() - heldFrom.at : 0;
    const heldWait = heldFrom && ended ? temporalCosts(heldFrom.reading, ended, 1).shard_io_wait_ms_mean : 0;
    const deliveredWhileHeld = heldFrom ? (receivedSoFar() - heldFrom.receivedBefore) * paths.length : 0;
    const heldWindows = heldFrom ? windows.slice(windows.findIndex((w) => w.saturated)) : [];

    log.info(`overload: ${committed.length} events committed; waiting for their deliveries to end`);
    const drainFrom = Date.now();
    const unsettled = async () =>
      (
        await stack.db.query<[{ n: number }]>(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY($1) AND status <> 'SUCCEEDED'`,
          [committed],
        )
      )[0].n;
    // Every delivery received and recorded, so a second POST that would come after (a claim taken
    // over, the ladder's next rung) is counted too.
    await waitFor(
      'every overload delivery to arrive and be recorded',
      async () => committed.every(received) && (await unsettled()) === 0,
      DRAIN_MS,
      500,
    ).catch((err: unknown) => log.error(String(err)));
    const drainS = round1((Date.now() - drainFrom) / 1000);
    const notSucceeded = await unsettled();
    const lost = committed.filter((id) => !received(id));
    const lostDeliveries = committed.flatMap(receiptsOf).filter((r) => !r.some((x) => x.accepted)).length;
    const receipts = committed.flatMap(receiptsOf);
    // Any POST of a delivery beyond its first, answered or not: the receiver got it twice.
    const doubled = receipts.filter((r) => r.length > 1).length;
    const deliveries = committed.length * paths.length;
    const rerunsAfter = await reruns(stack);
    const timeouts = (await taskTimeouts(metricsUrl)) - timeoutsBefore;
    const tasksLost = await logLines(stack, logSizes, /Task not found when completing/);
    const untracked = await logLines(stack, logSizes, /untracked local activity/);
    const meanWait = Math.round(heldWait);
    return {
      injected: heldFrom
        ? `${deliveries} deliveries; shard writes waited ${meanWait} ms on average for ${round1(heldMs / 1000)} s`
        : `${deliveries} deliveries; shard writes never waited over ${SATURATED_WAIT_MS} ms`,
      checks: [
        expect(
          `the cluster was held past saturation: shard writes waited over ${SATURATED_WAIT_MS} ms for ${HOLD_MS / 1000} s`,
          heldFrom !== undefined && heldMs >= HOLD_MS && heldWait > SATURATED_WAIT_MS,
          `${meanWait} ms on average over ${round1(heldMs / 1000)} s (windows of ${WINDOW_MS / 1000} s: ${heldWindows.map((w) => w.wait_ms).join(', ') || 'none saturated'} ms)`,
        ),
        expect(
          'every delivery committed under overload arrived (0 lost)',
          lost.length === 0 && notSucceeded === 0,
          `${deliveries - lostDeliveries} of ${deliveries} received, ${drainS} s after the drive; ${notSucceeded} not SUCCEEDED`,
        ),
        expect(
          'none reached the receiver twice (0 doubled)',
          doubled === 0,
          `${doubled} deliveries POSTed more than once; ${rerunsAfter.in_flight - rerunsBefore.in_flight} times a re-run found its attempt still being sent`,
        ),
      ],
      figures: {
        endpoints: paths.length,
        events_committed: committed.length,
        deliveries,
        delivered: deliveries - lostDeliveries,
        lost: lostDeliveries,
        doubled,
        shard_wait_ms_mean_held: meanWait,
        shard_wait_ms_windows: windows.map((w) => w.wait_ms),
        events_outstanding_windows: backlogs,
        held_s: round1(heldMs / 1000),
        deliveries_per_second_held: heldMs > 0 ? round1(deliveredWhileHeld / (heldMs / 1000)) : null,
        drain_s: drainS,
        first_receipt_not_attempt_1: receipts.filter((r) => r.length > 0 && r[0]!.attempt !== 1).length,
        attempt_reruns_in_flight: rerunsAfter.in_flight - rerunsBefore.in_flight,
        attempt_reruns_expired: rerunsAfter.expired - rerunsBefore.expired,
        workflow_task_timeouts: timeouts,
        workflow_tasks_lost: tasksLost,
        untracked_local_activities: untracked,
        commit_failures: commitFailures,
        fault_s: round1((Date.now() - began) / 1000),
      },
    };
  },
});
