import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { relayNotice, RELAY_CHANNEL } from '../../domain/kernel/events';
import { createLogger } from '../../infra/logger';
import { startRelay, type OutboxSource } from '../../worker/relay';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { until } from '../helpers/until';

/** An empty outbox that counts the relay's passes over it. */
function countedOutbox(name: string) {
  let passes = 0;
  const source: OutboxSource = {
    name,
    unstarted: async () => {
      passes++;
      return [];
    },
    key: () => '',
    start: async () => undefined,
  };
  return { source, passes: () => passes };
}

/**
 * A NOTIFY names its outbox, and the pass it wakes reads only that one: a burst of events costs the
 * relay the deliveries' statements per commit, not every outbox's (docs/temporal.md).
 */
describe('the relay reads only the outbox a NOTIFY names', () => {
  let t: TestDatabase;
  before(async () => {
    t = await freshDatabase();
  });
  after(() => t?.drop());

  it('wakes the named outbox alone, and every outbox for a NOTIFY that names none', async () => {
    const deliveries = countedOutbox('webhook delivery');
    const messages = countedOutbox('message');
    // A poll far off: only NOTIFY wakes a pass after the first, full one.
    const relay = startRelay({
      databaseUrl: t.url,
      sources: [deliveries.source, messages.source],
      log: createLogger('test-relay', 'error'),
      pollMs: 600_000,
    });
    const notify = (statement: [string, unknown[]]) => t.db.query(...statement);
    try {
      await relay.ready;
      await until('the first pass', () => deliveries.passes() >= 1 && messages.passes() >= 1);
      const before = { deliveries: deliveries.passes(), messages: messages.passes() };

      await notify(relayNotice('message'));
      await until("the messages' pass", () => messages.passes() > before.messages);
      await notify(relayNotice('message'));
      await until("the messages' next pass", () => messages.passes() > before.messages + 1);
      assert.equal(deliveries.passes(), before.deliveries, 'a NOTIFY for messages reads no deliveries');

      await notify([`SELECT pg_notify($1, '')`, [RELAY_CHANNEL]]);
      await until(
        'an empty NOTIFY reads every outbox',
        () => deliveries.passes() > before.deliveries && messages.passes() > before.messages + 2,
      );
    } finally {
      await relay.stop();
    }
  });
});
