import type { Logger } from '../../infra/logger';
import { checkDeliveries, waitForReceipts, type DeliveryFigures, type Expected } from './delivery-check';
import { commitBurstElsewhere } from './burst-writer';
import { commitEvent, type Committed } from './outbox-load';
import { paced } from './pacing';
import { formatTable } from './report';
import type { WebhookStack } from './webhook-stack';
import type { ReceiverPath } from './webhook-receiver';

/** Workspace B's steady rate, alone and beside A's burst. */
const QUIET_RATE = 5;
/** How long B sends alone, and beside A's burst (which lasts longer: B's events all land in it). */
const QUIET_SECONDS = 30;
const STALL_MS = 60_000;
/** B's p99 beside the burst may be at most this many times its p99 alone (issue 45). */
export const NOISY_P99_TARGET = 3;

export type NoisyFigures = {
  burst_events: number;
  /** Connections committing A's burst, one transaction after another on each. */
  burst_writers: number;
  /** A's commits a second, first commit to last: its intake, which its deliveries trail. */
  burst_commits_per_second: number;
  quiet_rate: number;
  quiet_alone: DeliveryFigures;
  quiet_during_burst: DeliveryFigures;
  burst: DeliveryFigures;
  /** B's p99 beside the burst over B's p99 alone, in the same run. */
  ratio_p99_during_vs_alone: number;
  ratio_p50_during_vs_alone: number;
  /** A's backlog of deliveries still not received when B's last event of the phase was. */
  burst_waiting_at_last_quiet_receipt: number;
  target_met: boolean;
};

const commitRate = (commits: Committed[]): number => {
  const times = commits.map((c) => c.committedAt);
  const seconds = (Math.max(...times) - Math.min(...times)) / 1000;
  return seconds > 0 ? Math.round((commits.length / seconds) * 10) / 10 : commits.length;
};

const expectedOf = (commits: Committed[]): Expected[] =>
  commits.map((c) => ({ id: c.id, t0: c.committedAt }));

/**
 * The noisy neighbour: workspace B (`quiet`) sends QUIET_RATE events a second alone, then again while
 * workspace A (`ok`) commits `burstEvents` at full speed, from `burstWriters` connections in a process
 * of its own (bench/lib/burst-writer.ts). B's commit → receipt latency in both, in the same run, says
 * whether A's backlog holds B back: without fairness B waits behind all of it.
 */
export async function noisyPhase(
  s: WebhookStack,
  burstEvents: number,
  burstWriters: number,
  log: Logger,
): Promise<NoisyFigures> {
  const inbox = (p: ReceiverPath) => s.receiver.inbox(p);
  const waitAll = (path: ReceiverPath, expected: Expected[], what: string) =>
    waitForReceipts(inbox(path), expected, {
      what,
      log,
      stallMs: STALL_MS,
      gone: () => s.workers.map((w) => w.exitReason()).find(Boolean),
    });
  const quiet = () =>
    paced(QUIET_RATE, QUIET_RATE * QUIET_SECONDS, () => commitEvent(s.db, s.quietWorkspace));

  log.info(`noisy neighbour: B alone, ${QUIET_RATE}/s for ${QUIET_SECONDS} s`);
  const alone = expectedOf(await quiet());
  await waitAll('quiet', alone, 'B alone');

  log.info(
    `noisy neighbour: A commits ${burstEvents} events at full speed (${burstWriters} writer(s)) while B sends ${QUIET_RATE}/s`,
  );
  const [burstCommits, quietCommits] = await Promise.all([
    commitBurstElsewhere({
      databaseUrl: s.databaseUrl,
      workspaceId: s.okWorkspace,
      events: burstEvents,
      concurrency: burstWriters,
    }),
    quiet(),
  ]);
  const during = expectedOf(quietCommits);
  const burst = expectedOf(burstCommits);
  await waitAll('quiet', during, 'B beside the burst');
  // A's deliveries still on their way when B's last one arrived: the burst was still going on.
  const lastQuiet = Math.max(...during.map((e) => inbox('quiet').byEvent.get(e.id)?.[0]?.at ?? 0));
  const burstWaiting = burst.filter((e) => {
    const first = inbox('ok').byEvent.get(e.id)?.[0];
    return !first || first.at > lastQuiet;
  }).length;
  await waitAll('ok', burst, "A's burst");

  const quietAlone = checkDeliveries(inbox('quiet'), alone);
  const quietDuring = checkDeliveries(inbox('quiet'), during);
  const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  const figures: NoisyFigures = {
    burst_events: burstEvents,
    burst_writers: burstWriters,
    burst_commits_per_second: commitRate(burstCommits),
    quiet_rate: QUIET_RATE,
    quiet_alone: quietAlone,
    quiet_during_burst: quietDuring,
    burst: checkDeliveries(inbox('ok'), burst),
    ratio_p99_during_vs_alone: ratio(quietDuring.p99_ms, quietAlone.p99_ms),
    ratio_p50_during_vs_alone: ratio(quietDuring.p50_ms, quietAlone.p50_ms),
    burst_waiting_at_last_quiet_receipt: burstWaiting,
    target_met: quietDuring.p99_ms <= NOISY_P99_TARGET * quietAlone.p99_ms && burstWaiting > 0,
  };
  return figures;
}

/** The phase's table: B alone, B beside A's burst, and A's burst itself. */
export function printNoisyReport(f: NoisyFigures): void {
  const row = (label: string, d: DeliveryFigures) => [
    label,
    String(d.events),
    String(d.received),
    d.per_second.toFixed(1),
    d.p50_ms.toFixed(1),
    d.p99_ms.toFixed(1),
    d.max_ms.toFixed(1),
    String(d.lost),
    String(d.duplicates),
  ];
  console.log(
    formatTable(
      ['noisy neighbour', 'events', 'received', 'per s', 'p50 ms', 'p99 ms', 'max ms', 'lost', 'doubled'],
      [
        row(`B alone (${f.quiet_rate}/s)`, f.quiet_alone),
        row(`B beside A's burst (${f.quiet_rate}/s)`, f.quiet_during_burst),
        row(`A's burst (${f.burst_events} at once)`, f.burst),
      ],
    ),
  );
  console.log(
    `\nA committed its burst at ${f.burst_commits_per_second} events/s from ${f.burst_writers} connection(s).`,
  );
  console.log(
    `B's p99 beside the burst is ${f.ratio_p99_during_vs_alone}x its p99 alone (target <= ${NOISY_P99_TARGET}x); ` +
      `p50 ${f.ratio_p50_during_vs_alone}x. ${f.burst_waiting_at_last_quiet_receipt} of A's deliveries were still ` +
      `on their way when B's last arrived.`,
  );
}
