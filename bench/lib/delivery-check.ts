import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../infra/logger';
import { percentile } from './stats';
import type { Inbox } from './webhook-receiver';

/** One event sent, and when its clock started: its commit (whole path) or its send (baseline). */
export type Expected = { id: string; t0: number };

export type DeliveryFigures = {
  events: number;
  received: number;
  lost: number;
  lost_sample: string[];
  /** Receipts beyond the first of an event: at-least-once allows them after a crash, not in a clean run. */
  duplicates: number;
  /** Events whose first receipt was not attempt 1: an earlier attempt failed somewhere. */
  first_receipt_not_attempt_1: number;
  seconds: number;
  per_second: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  mean_ms: number;
};

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * Waits until every expected event has arrived, or no new one has for `stallMs` (then the rest
 * are lost), or `gone()` says the sender died. Progress to the log every 5 s.
 */
export async function waitForReceipts(
  inbox: Inbox,
  expected: Expected[],
  opts: { what: string; log: Logger; stallMs: number; gone: () => string | undefined },
): Promise<void> {
  let have = 0;
  let lastProgress = Date.now();
  let lastLog = Date.now();
  while (have < expected.length) {
    await sleep(25);
    const now = expected.reduce((n, e) => n + (inbox.byEvent.has(e.id) ? 1 : 0), 0);
    if (now > have) lastProgress = Date.now();
    have = now;
    const reason = opts.gone();
    if (reason) throw new Error(`${reason} with ${have}/${expected.length} ${opts.what} received`);
    if (Date.now() - lastProgress > opts.stallMs) {
      opts.log.warn(`${opts.what}: nothing new for ${opts.stallMs / 1000} s; counting the rest as lost`);
      return;
    }
    if (Date.now() - lastLog >= 5000) {
      lastLog = Date.now();
      opts.log.info(`${opts.what}: ${have}/${expected.length} received`);
    }
  }
}

/** Lost, doubled, rate from the first t0 to the last first receipt, and t0 → first receipt latency. */
export function checkDeliveries(inbox: Inbox, expected: Expected[]): DeliveryFigures {
  const latencies: number[] = [];
  const lost: string[] = [];
  let duplicates = 0;
  let notFirst = 0;
  let lastAt = -Infinity;
  for (const e of expected) {
    const receipts = inbox.byEvent.get(e.id);
    if (!receipts) {
      lost.push(e.id);
      continue;
    }
    duplicates += receipts.length - 1;
    if (receipts[0]!.attempt !== 1) notFirst += 1;
    latencies.push(receipts[0]!.at - e.t0);
    lastAt = Math.max(lastAt, receipts[0]!.at);
  }
  const sorted = Float64Array.from(latencies).sort();
  const firstT0 = Math.min(...expected.map((e) => e.t0));
  const seconds = latencies.length > 0 ? (lastAt - firstT0) / 1000 : NaN;
  return {
    events: expected.length,
    received: latencies.length,
    lost: lost.length,
    lost_sample: lost.slice(0, 5),
    duplicates,
    first_receipt_not_attempt_1: notFirst,
    seconds: round(seconds),
    per_second: round(latencies.length / seconds, 1),
    p50_ms: round(percentile(sorted, 50)),
    p99_ms: round(percentile(sorted, 99)),
    max_ms: round(sorted[sorted.length - 1] ?? NaN),
    mean_ms: round(latencies.reduce((a, b) => a + b, 0) / latencies.length),
  };
}
