import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { RELAY_SLOTS, inSlots, slotsParam, type RelaySlots } from '../../domain/kernel/outbox';
import { createLogger } from '../../infra/logger';
import { startRelay, type OutboxSource } from '../../worker/relay';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { until } from '../helpers/until';

type Row = { id: string; workspace_id: string };

/**
 * The relays of several workers divide the outbox rows among themselves: each holds a share of the
 * slots (by workspace) as advisory locks on its own session, reads only its slots' rows and starts each
 * once; when one dies, its session's locks go with it and the others take its slots within seconds, so
 * every row is still started, once.
 */
describe('relays divide the outbox rows by slot', () => {
  let t: TestDatabase;
  before(async () => {
    t = await freshDatabase();
    await t.db.query(
      `CREATE TABLE relay_rows (id uuid PRIMARY KEY, workspace_id uuid NOT NULL, started_at timestamptz)`,
    );
  });
  after(() => t?.drop());

  /** How often each row was started, by any relay, and by which. */
  const starts = new Map<string, string[]>();

  /** An outbox of `relay_rows` as an area declares one: its slots' unstarted rows, marked at start. */
  const source = (relay: string): OutboxSource => ({
    name: 'test rows',
    unstarted: (limit, meanwhile, slots: RelaySlots) =>
      t.db.query<Row[]>(
        `SELECT id, workspace_id FROM relay_rows
          WHERE started_at IS NULL AND NOT (id = ANY($2::uuid[])) AND ${inSlots('workspace_id', '$3')}
          ORDER BY id LIMIT $1`,
        [limit, meanwhile, slotsParam(slots)],
      ),
    key: (row) => (row as Row).id,
    start: async (row) => {
      const { id } = row as Row;
      starts.set(id, [...(starts.get(id) ?? []), relay]);
      await t.db.query(`UPDATE relay_rows SET started_at = clock_timestamp() WHERE id = $1`, [id]);
    },
  });

  const relay = (name: string) =>
    startRelay({
      databaseUrl: t.url,
      sources: [source(name)],
      log: createLogger('test-relay', 'error'),
      pollMs: 200,
    });

  const held = (slots: RelaySlots) => (slots === 'all' ? RELAY_SLOTS : slots.length);

  it('holds every slot alone, shares them among three, and starts each row once; a dead relay’s slots are taken over', async () => {
    const a = relay('a');
    await a.ready;
    await until('one relay holds every slot', () => a.slots() === 'all');

    const b = relay('b');
    const c = relay('c');
    await Promise.all([b.ready, c.ready]);
    await until(
      'three relays share the slots, each about a third, none twice',
      () => {
        const sets = [a, b, c].map((r) => r.slots());
        if (sets.some((s) => s === 'all')) return false;
        const all = sets.flatMap((s) => s as number[]);
        return new Set(all).size === RELAY_SLOTS && all.length === RELAY_SLOTS;
      },
      15_000,
    );
    for (const r of [a, b, c]) assert.ok(held(r.slots()) <= Math.ceil(RELAY_SLOTS / 3), String(r.slots()));

    // 1,000 rows of 50 workspaces, committed in one go.
    const workspaces = Array.from({ length: 50 }, () => randomUUID());
    await t.db.query(
      `INSERT INTO relay_rows (id, workspace_id)
       SELECT gen_random_uuid(), ($1::uuid[])[1 + (i % 50)] FROM generate_series(0, 999) i`,
      [workspaces],
    );
    await until('every row started', () => starts.size === 1000, 30_000);
    assert.equal(starts.size, 1000);
    assert.deepEqual(
      [...starts.values()].filter((by) => by.length > 1),
      [],
      'no row started twice',
    );
    const byRelay = new Map<string, number>();
    for (const [by] of starts.values()) byRelay.set(by!, (byRelay.get(by!) ?? 0) + 1);
    assert.equal(byRelay.size, 3, `every relay started some: ${JSON.stringify([...byRelay])}`);

    // One relay dies: its session ends without letting go of anything first.
    const [{ pid }] = await t.db.query<[{ pid: number }]>(
      `SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND l.classid::bigint = $1 AND l.objid = $2 AND l.objsubid = 2`,
      [0x52454c53, (c.slots() as number[])[0]],
    );
    const died = Date.now();
    await t.db.query(`SELECT pg_terminate_backend($1)`, [pid]);
    await c.stop();
    await until(
      'the two left hold every slot',
      () => held(a.slots()) + held(b.slots()) === RELAY_SLOTS,
      10_000,
    );
    assert.ok(Date.now() - died < 10_000, 'taken over within 10 seconds');

    starts.clear();
    await t.db.query(
      `INSERT INTO relay_rows (id, workspace_id)
       SELECT gen_random_uuid(), ($1::uuid[])[1 + (i % 50)] FROM generate_series(0, 499) i`,
      [workspaces],
    );
    await until('every new row started', () => starts.size === 500);
    assert.deepEqual(
      [...starts.values()].filter((by) => by.length > 1 || by[0] === 'c'),
      [],
      'each once, by the two left',
    );
    await Promise.all([a.stop(), b.stop()]);
  });
});
