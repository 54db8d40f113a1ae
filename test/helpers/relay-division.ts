import assert from 'node:assert/strict';
import type pg from 'pg';
import type { DataSource } from 'typeorm';
import { commitEvent } from '../../bench/lib/outbox-load';
import { readTemporalMetrics, startCalls, type TemporalReading } from '../../bench/lib/temporal-metrics';
import { RELAY_SLOTS, inSlots, slotsParam } from '../../domain/kernel/outbox';
import { waitFor } from '../../tooling/processes';
import { START_CONCURRENCY, relaySlotHolders } from '../../worker/relay';
import type { Receiver } from './receiver';

/**
 * Every slot held, by `n` relays, none above its share, as `slotLeases` balances them (within a second
 * or two of a relay joining or leaving): each session's slots.
 */
export const slotsDividedAmong = (sql: pg.Pool, n: number) =>
  waitFor(
    `the slots divided among ${n} relays`,
    async () => {
      const h = await relaySlotHolders(sql);
      const held = h.slots.flat();
      return h.relays === n &&
        h.slots.length === n &&
        new Set(held).size === RELAY_SLOTS &&
        held.length === RELAY_SLOTS &&
        h.slots.every((slots) => slots.length <= Math.ceil(RELAY_SLOTS / n))
        ? h.slots
        : undefined;
    },
    30_000,
    200,
  );

/**
 * `count` lead.created events, the workspaces taking turns (event i in workspace i mod their number),
 * 20 transactions at a time, as operations commit them (the outbox fan-out in their transaction): their
 * ids, pushed to `committed` as they commit.
 */
export async function commitInTurn(
  db: DataSource,
  workspaces: string[],
  count: number,
  committed: string[] = [],
): Promise<string[]> {
  for (let i = 0; i < count; i += 20)
    committed.push(
      ...(
        await Promise.all(
          Array.from({ length: Math.min(20, count - i) }, (_, j) =>
            commitEvent(db, workspaces[(i + j) % workspaces.length]!),
          ),
        )
      ).map((e) => e.id),
    );
  return committed;
}

/** Of `count` events committed in turn (`commitInTurn`), those of the workspaces in each session's slots. */
export async function sharesOf(
  sql: pg.Pool,
  slots: number[][],
  workspaces: string[],
  count: number,
): Promise<number[]> {
  const n = workspaces.length;
  const eventsOf = (w: number) => Math.floor(count / n) + (w < count % n ? 1 : 0);
  return Promise.all(
    slots.map(async (held) => {
      // The relays' own rule for which rows a slot holds.
      const { rows } = await sql.query<{ id: string }>(
        `SELECT id FROM workspaces WHERE id = ANY($1::uuid[]) AND ${inSlots('id', '$2')}`,
        [workspaces, slotsParam(held)],
      );
      return rows.reduce((sum, r) => sum + eventsOf(workspaces.indexOf(r.id)), 0);
    }),
  );
}

/** How many times each of `events` reached the receiver: the attempt numbers it came with. */
export function arrivalsOf(receiver: Receiver, events: string[]): Map<string, string[]> {
  const wanted = new Set(events);
  const times = new Map<string, string[]>();
  for (const r of receiver.received) {
    const id = r.headers['service-event-id'] as string;
    if (wanted.has(id))
      times.set(id, [...(times.get(id) ?? []), r.headers['service-delivery-attempt'] as string]);
  }
  return times;
}

/** The deliveries of `events`, by status. */
const deliveryRows = async (sql: pg.Pool, events: string[]) =>
  (
    await sql.query<{ status: string; attempts: number }>(
      'SELECT status, attempts FROM webhook_deliveries WHERE event_id = ANY($1::text[])',
      [events],
    )
  ).rows;

/** Until every event reached the receiver and each of its delivery rows recorded success: the rows. */
export const delivered = (
  sql: pg.Pool,
  receiver: Receiver,
  what: string,
  events: string[],
  timeoutMs: number,
) =>
  waitFor(
    what,
    async () => {
      if (arrivalsOf(receiver, events).size < events.length) return undefined;
      const rows = await deliveryRows(sql, events);
      return rows.length === events.length && rows.every((d) => d.status === 'SUCCEEDED') ? rows : undefined;
    },
    timeoutMs,
    250,
  );

/** The deliveries a worker's relay started, on its metrics page (`leads_relay_starts_total`). */
export async function relayStarts(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text
    .split('\n')
    .find((l) => /^leads_relay_starts_total\{.*outbox="webhook_delivery".*outcome="started"/.test(l));
  return Number(line?.split(' ').at(-1) ?? 0);
}

/**
 * The server's StartWorkflowExecution calls since `before`, once it counts at least `rows` of them that
 * were not refused: its counters reach the metrics page a moment after the calls (the reporter flushes
 * on an interval), so a reading taken as the last delivery arrives can miss the last calls.
 */
export const startCallsSince = (metricsUrl: string, before: TemporalReading, rows: number) =>
  waitFor(
    'the server to count the start calls',
    async () => {
      const counted = startCalls(before, await readTemporalMetrics(metricsUrl));
      return counted.calls - counted.refused >= rows ? counted : undefined;
    },
    15_000,
    250,
  );

/**
 * What a worker killed mid-run may cost in start calls, and no more: every row started exactly once
 * (the callers count the runs). Beside the calls that started them, the calls the killed worker had
 * under way were cut off (the server counts them as failed), at most its relay's start pool; and a
 * survivor taking its slots over offers again the rows it had started but not yet marked (refused: the
 * run exists), at most that pool too. A call cut off may still have started its run (the server went on
 * with it): so the rows are between the calls accepted and those plus the calls cut off.
 */
export function assertKillStarts(
  counted: ReturnType<typeof startCalls>,
  rows: number,
  notUnderWayAtKill: number,
): void {
  const { calls, refused, failed } = counted;
  const cutOff = Object.values(failed).reduce((sum, n) => sum + n, 0);
  assert.ok(cutOff <= START_CONCURRENCY, `${cutOff} calls failed: ${JSON.stringify(failed)}`);
  assert.ok(refused <= Math.min(notUnderWayAtKill, START_CONCURRENCY), `${refused} refused starts`);
  const accepted = calls - cutOff - refused;
  assert.ok(
    accepted <= rows && rows <= accepted + cutOff,
    `StartWorkflowExecution calls accepted: ${accepted} for ${rows}, ${cutOff} cut off, ${refused} refused`,
  );
}
