import type { DataSource } from 'typeorm';
import { percentile } from './stats';
import type { Inbox } from './webhook-receiver';

export type Split = { p50_ms: number; p99_ms: number };
export type LatencyBreakdown = {
  /** Relay wake-up and pass, workflow start (eager) and its first task, the activity's own read. */
  commit_to_attempt_start: Split;
  /** Target check, secret, signature, connect and POST, until the receiver has the body. */
  attempt_start_to_receipt: Split;
};

const split = (values: number[]): Split => {
  const sorted = Float64Array.from(values).sort();
  return { p50_ms: percentile(sorted, 50), p99_ms: percentile(sorted, 99) };
};

/**
 * Where commit → receipt goes, from attempt 1's started_at, which the activity takes from the
 * worker's clock right before it POSTs. Wall clocks in milliseconds, on one machine.
 */
export async function latencyBreakdown(
  db: DataSource,
  inbox: Inbox,
  commits: { id: string; committedWall: number }[],
): Promise<LatencyBreakdown> {
  const rows = await db.query<{ event_id: string; started_at: Date }[]>(
    `SELECT d.event_id, a.started_at FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
      WHERE d.event_id = ANY($1) AND a.number = 1`,
    [commits.map((c) => c.id)],
  );
  const started = new Map(rows.map((r) => [r.event_id, r.started_at.getTime()]));
  const before: number[] = [];
  const after: number[] = [];
  for (const c of commits) {
    const attemptAt = started.get(c.id);
    const receipt = inbox.byEvent.get(c.id)?.[0];
    if (attemptAt === undefined || !receipt) continue;
    before.push(attemptAt - c.committedWall);
    after.push(receipt.wall - attemptAt);
  }
  return { commit_to_attempt_start: split(before), attempt_start_to_receipt: split(after) };
}
