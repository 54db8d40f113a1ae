import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../infra/logger';
import { startRelay, type OutboxSource } from '../../worker/relay';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { until } from '../helpers/until';

type Row = { id: string; workspace: string; endpoint: string };

/**
 * An outbox in memory: rows wait until the relay starts them, and a started row stays "not yet under
 * way" until the test lets its first attempt record (`underWay`). The relay's passes are counted, so
 * the test can wait for a few more of them instead of sleeping.
 */
function memoryOutbox() {
  const waiting: Row[] = [];
  const starting = new Set<string>();
  const started: Row[] = [];
  let passes = 0;
  const source: OutboxSource = {
    name: 'test outbox',
    unstarted: async (limit, meanwhile) => {
      passes++;
      return waiting.filter((r) => !meanwhile.includes(r.id)).slice(0, limit);
    },
    key: (r) => (r as Row).id,
    start: async (r) => {
      const row = r as Row;
      waiting.splice(waiting.indexOf(row), 1);
      starting.add(row.id);
      started.push(row);
    },
    fair: {
      group: (r) => (r as Row).endpoint,
      workspace: (r) => (r as Row).workspace,
      stillStarting: async (keys) => keys.filter((k) => starting.has(k)),
    },
  };
  return {
    source,
    add: (workspace: string, n: number) => {
      for (let i = 0; i < n; i++)
        waiting.push({
          id: `${workspace}-${waiting.length + started.length}`,
          workspace,
          endpoint: `${workspace}-endpoint`,
        });
    },
    underWay: (workspace: string) => {
      for (const r of started) if (r.workspace === workspace) starting.delete(r.id);
    },
    /** Rows of a workspace started and not yet under way. */
    inFlight: (workspace: string) =>
      started.filter((r) => r.workspace === workspace && starting.has(r.id)).length,
    startedOf: (workspace: string) => started.filter((r) => r.workspace === workspace).length,
    /** Resolves once the relay has made `n` more passes. */
    passes: (n: number) => {
      const target = passes + n;
      return until(`${n} more relay passes`, () => passes >= target);
    },
  };
}

/**
 * The relay's cap on what is started and not yet under way: 25 per endpoint for a workspace alone;
 * while another workspace is busy, 1 for a burst (more than 25 waiting) and 5 for a trickle
 * (docs/temporal.md, "Fair delivery across workspaces").
 */
describe('the relay caps what it starts per endpoint, more tightly while workspaces share it', () => {
  let t: TestDatabase;
  before(async () => {
    // The relay LISTENs on a connection of its own; the rows themselves are in memory.
    t = await freshDatabase();
  });
  after(() => t?.drop());

  it('starts 25 of a workspace alone; while another is busy, a burst 1 at a time and a trickle 5; 25 again once alone', async () => {
    const outbox = memoryOutbox();
    outbox.add('a', 200);
    const relay = startRelay({
      databaseUrl: t.url,
      sources: [outbox.source],
      log: createLogger('test-relay', 'error'),
      pollMs: 20,
    });
    try {
      await relay.ready;
      await until('25 of A started', () => outbox.inFlight('a') === 25);
      await outbox.passes(3);
      assert.equal(
        outbox.startedOf('a'),
        25,
        'no more than 25 of a workspace alone are started and not under way',
      );

      // B's one row starts at once, beside A's 25.
      outbox.add('b', 1);
      await until('B started', () => outbox.startedOf('b') === 1);

      // A's 25 get under way; while B's row is still starting, A's burst gets 1 at a time, not 25.
      outbox.underWay('a');
      await until('A started again', () => outbox.inFlight('a') > 0);
      await outbox.passes(3);
      assert.equal(outbox.inFlight('a'), 1);
      assert.equal(outbox.startedOf('a'), 26);

      // B is a trickle, not a burst: its next rows start while its first is still starting.
      outbox.add('b', 2);
      await until("B's next two started", () => outbox.startedOf('b') === 3);
      assert.equal(outbox.inFlight('b'), 3);
      assert.equal(outbox.inFlight('a'), 1, 'A still gets 1 at a time');

      // A trickle gets 5 at a time while another workspace is busy, not 25: a burst just beginning
      // looks like a trickle until more than 25 of its rows wait.
      outbox.add('b', 4);
      await until('5 of B started', () => outbox.inFlight('b') === 5);
      await outbox.passes(3);
      assert.equal(outbox.startedOf('b'), 5, "B's other 2 wait for its first rows to get under way");
      outbox.underWay('b');
      await until('all of B started', () => outbox.startedOf('b') === 7);

      // B's rows get under way and B falls quiet: within a second A is alone again, and gets 25.
      outbox.underWay('b');
      outbox.underWay('a');
      await until('A back at 25', () => outbox.inFlight('a') === 25);
    } finally {
      await relay.stop();
    }
  });
});
