import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { relayNotice, RELAY_CHANNEL } from '../../domain/kernel/events';
import { inSlots, RELAY_SLOTS, slotOf, slotsParam, type RelaySlots } from '../../domain/kernel/outbox';
import { DELIVERY_OUTBOX } from '../../domain/webhooks/fan-out';
import { createLogger } from '../../infra/logger';
import { waitFor } from '../../tooling/processes';
import { startRelay, type OutboxSource } from '../../worker/relay';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { emitLeadCreated } from '../helpers/deliveries';
import { workspaceWithKey } from '../helpers/fixtures';
import { until } from '../helpers/until';

const OUTBOX = 'notice rows';
type Row = { id: string; workspace_id: string };

/**
 * A commit's notice names the slot of its rows' workspace, and only the relay holding that slot wakes
 * (worker/relay.ts `noticeFor`): with several workers, a notice for every relay had each of them read
 * its own slots for nothing. A slot changing hands loses no row: its taker reads it in the full pass
 * that took it, so a row still starts within the poll (docs/temporal.md, the relays).
 */
describe("the relays' notices name the slot", () => {
  let t: TestDatabase;
  before(async () => {
    t = await freshDatabase();
    await t.db.query(
      `CREATE TABLE notice_rows (id uuid PRIMARY KEY, workspace_id uuid NOT NULL,
                                 committed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                                 started_at timestamptz, started_by text)`,
    );
  });
  after(() => t?.drop());

  /** The relays a test started: each stopped after it, and its rows gone. */
  const running: { stop: () => Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((r) => r.stop()));
    await t.db.query('DELETE FROM notice_rows');
  });

  /** A relay over `notice_rows`, counting its reads of them (one a pass); a start notes the relay. */
  const relay = (name: string, pollMs: number) => {
    let reads = 0;
    const source: OutboxSource = {
      name: OUTBOX,
      unstarted: (limit, meanwhile, slots: RelaySlots) => {
        reads++;
        return t.db.query<Row[]>(
          `SELECT id, workspace_id FROM notice_rows
            WHERE started_at IS NULL AND NOT (id = ANY($2::uuid[])) AND ${inSlots('workspace_id', '$3')}
            ORDER BY committed_at LIMIT $1`,
          [limit, meanwhile, slotsParam(slots)],
        );
      },
      key: (row) => (row as Row).id,
      start: async (row) => {
        // A second start shows as `a,b`.
        await t.db.query(
          `UPDATE notice_rows
              SET started_at = clock_timestamp(), started_by = coalesce(started_by || ',', '') || $2
            WHERE id = $1`,
          [(row as Row).id, name],
        );
      },
    };
    const log = createLogger('test-relay', 'error');
    const r = startRelay({ databaseUrl: t.url, sources: [source], log, pollMs });
    running.push(r);
    return { ...r, reads: () => reads };
  };
  type Relay = ReturnType<typeof relay>;

  /** A row of `workspace` committed with its notice, as an area writes one: its id. */
  const commit = (workspace: string) =>
    t.db.transaction(async (m) => {
      const [row] = await m.query<Row[]>(
        `INSERT INTO notice_rows (id, workspace_id) VALUES (gen_random_uuid(), $1) RETURNING id`,
        [workspace],
      );
      await m.query(...relayNotice(OUTBOX, workspace));
      return row!.id;
    });

  const startedBy = async (id: string) => {
    const sql = 'SELECT started_by FROM notice_rows WHERE id = $1';
    const [row] = await t.db.query<{ started_by: string | null }[]>(sql, [id]);
    return row!.started_by;
  };
  /** Until the row has started: by whom. */
  const started = (id: string) =>
    waitFor(`row ${id} started`, async () => (await startedBy(id)) ?? undefined, 10_000, 10);

  const unstartedRows = async () => {
    const sql = 'SELECT count(*)::int AS n FROM notice_rows WHERE started_at IS NULL';
    const [row] = await t.db.query<{ n: number }[]>(sql);
    return row!.n;
  };

  /** One workspace in each slot, by the relays' own rule: index i is slot i's. */
  const workspacePerSlot = async (): Promise<string[]> => {
    const rows = await t.db.query<{ slot: number; id: string }[]>(
      `SELECT DISTINCT ON (slot) slot, id
         FROM (SELECT ${slotOf('u.id')} AS slot, u.id
                 FROM (SELECT gen_random_uuid() AS id FROM generate_series(1, 5000)) u) s
        ORDER BY slot`,
    );
    assert.equal(rows.length, RELAY_SLOTS);
    return rows.map((r) => r.id);
  };

  /** Two relays holding every slot between them, none twice. */
  const divided = (a: Relay, b: Relay) => {
    const [x, y] = [a.slots(), b.slots()];
    if (x === 'all' || y === 'all') return false;
    return x.length + y.length === RELAY_SLOTS && new Set([...x, ...y]).size === RELAY_SLOTS;
  };

  it('wakes only the relay holding the slot of the rows committed', async () => {
    // The poll far off: after the first passes, only a notice wakes a relay (an empty one, a full pass).
    const a = relay('a', 600_000);
    await a.ready;
    await until('one relay holds every slot', () => a.slots() === 'all');
    const b = relay('b', 600_000);
    await b.ready;
    // A relay balances before a full pass, at most once a second: empty notices drive them there.
    await waitFor(
      'the two share the slots',
      async () => {
        await t.db.query(`SELECT pg_notify($1, '')`, [RELAY_CHANNEL]);
        return divided(a, b) || undefined;
      },
      15_000,
      250,
    );
    const inSlot = await workspacePerSlot();
    const workspaceOf = (r: Relay) => inSlot[(r.slots() as number[])[0]!]!;

    /**
     * `holder`'s rows committed one by one, each started before the next, then one of `other`'s:
     * how many times `other` read meanwhile. Its own row's pass, and at most one left over from
     * before; a relay woken by every notice would read for each of `holder`'s rows too.
     */
    const readsOfOther = async (holder: Relay, other: Relay) => {
      await started(await commit(workspaceOf(other)));
      const before = other.reads();
      for (let i = 0; i < 5; i++) await started(await commit(workspaceOf(holder)));
      await started(await commit(workspaceOf(other)));
      return other.reads() - before;
    };
    const byB = await readsOfOther(a, b);
    assert.ok(byB <= 2, `b read ${byB} times for a's five rows and its own one`);
    const byA = await readsOfOther(b, a);
    assert.ok(byA <= 2, `a read ${byA} times for b's five rows and its own one`);

    const starters = await t.db.query<{ started_by: string }[]>(
      'SELECT DISTINCT started_by FROM notice_rows ORDER BY started_by',
    );
    assert.deepEqual(
      starters.map((s) => s.started_by),
      ['a', 'b'],
      "each row started once, by its slot's holder",
    );
  });

  it('starts a row within the poll while its slot changes hands', async () => {
    const POLL_MS = 1_000;
    const a = relay('a', POLL_MS);
    await a.ready;
    await until('one relay holds every slot', () => a.slots() === 'all');
    const inSlot = await workspacePerSlot();
    // A row every 10 ms, the slots in turn: every slot has rows committed while it is let go and taken.
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await commit(inSlot[written++ % RELAY_SLOTS]!);
        await delay(10);
      }
    })();
    const b = relay('b', POLL_MS);
    try {
      await b.ready;
      await until('the two share the slots', () => divided(a, b), 15_000);
      const enough = written + 200;
      await until('200 rows more, the slots divided', () => written >= enough, 15_000);
      writing = false;
      await writer;
      await waitFor('every row started', async () => (await unstartedRows()) === 0 || undefined, 15_000, 50);

      const [waits] = await t.db.query<{ rows: number; slowest_ms: number; twice: number; by_b: number }[]>(
        `SELECT count(*)::int AS rows,
                max(extract(epoch FROM started_at - committed_at) * 1000)::int AS slowest_ms,
                count(*) FILTER (WHERE started_by LIKE '%,%')::int AS twice,
                count(*) FILTER (WHERE started_by = 'b')::int AS by_b
           FROM notice_rows`,
      );
      assert.ok(waits!.by_b > 0, 'the slots moved: b started rows');
      assert.equal(waits!.twice, 0, 'no row started twice');
      // A slot let go waits for its taker's next balance (each second, before its full pass), which
      // reads its rows at once; a notice no relay took costs no more than that.
      assert.ok(
        waits!.slowest_ms <= 2 * POLL_MS,
        `the slowest of ${waits!.rows} rows waited ${waits!.slowest_ms} ms (poll ${POLL_MS} ms)`,
      );
    } finally {
      writing = false;
      await writer.catch(() => undefined);
    }
  });

  it("names the slot a relay reads the rows in: the fan-out's notice and an area's", async () => {
    const { workspace } = await workspaceWithKey(t.db);
    await t.db.query(
      `INSERT INTO webhook_endpoints (workspace_id, url, event_types, secret_ciphertext)
       VALUES ($1, 'https://example.com/a', '{lead.created}', '\\x00'),
              ($1, 'https://example.com/b', '{*}', '\\x00')`,
      [workspace.id],
    );
    // Listening from here: the workspace's set-up (its member's mail) notified before.
    const listener = new pg.Client({ connectionString: t.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', ({ payload }) => heard.push(payload ?? ''));
    await listener.query(`LISTEN ${RELAY_CHANNEL}`);
    const next = async () => {
      await until('a notice', () => heard.length > 0);
      return heard.shift()!;
    };
    /** Whether a relay holding just `slots` reads the row of `workspace`. */
    const reads = async (workspace: string, slots: number[]) => {
      const sql = `SELECT ${inSlots('$1::uuid', '$2')} AS ok`;
      const [row] = await t.db.query<{ ok: boolean }[]>(sql, [workspace, slots]);
      return row!.ok;
    };
    const everyBut = (slot: number) => [...Array(RELAY_SLOTS).keys()].filter((s) => s !== slot);
    try {
      // Two deliveries of one workspace: one notice, for their one slot, the one their holder reads.
      const event = await t.db.transaction((m) => emitLeadCreated(m, workspace.id));
      const fannedOut = await next();
      const slot = Number(fannedOut.slice(`${DELIVERY_OUTBOX}:`.length));
      assert.equal(fannedOut, `${DELIVERY_OUTBOX}:${slot}`);
      const deliveriesIn = async (slots: number[]) => {
        const sql = `SELECT count(*)::int AS n FROM webhook_deliveries
                      WHERE event_id = $1 AND ${inSlots('workspace_id', '$2')}`;
        const [row] = await t.db.query<{ n: number }[]>(sql, [event, slots]);
        return row!.n;
      };
      assert.equal(await deliveriesIn([slot]), 2);
      assert.equal(await deliveriesIn(everyBut(slot)), 0);

      const other = randomUUID();
      await t.db.query(...relayNotice('message', other));
      const named = await next();
      assert.ok(named.startsWith('message:'), named);
      assert.ok(await reads(other, [Number(named.slice('message:'.length))]), `${named} for ${other}`);
    } finally {
      await listener.end();
    }
  });
});
