import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readRelayNotice, relayNotice, relayWakeUp, RELAY_CHANNEL } from '../../domain/kernel/events';
import { inSlots, slotOf } from '../../domain/kernel/outbox';
import { deliveryFanOut } from '../../domain/webhooks/fan-out';
import { noticeFor } from '../../worker/relay';

const outboxes = new Set(['webhook delivery', 'message', 'odd:7']);
const holding =
  (...slots: number[]) =>
  (slot: number) =>
    slots.includes(slot);

/**
 * A commit's notice names its outbox and, where it knows the rows' workspace, their slot: only the
 * relay holding that slot wakes, the others read nothing (docs/temporal.md, the relays).
 */
describe("the relay's notices: the outbox and the slot", () => {
  it('reads `<outbox>:<slot>` and a bare `<outbox>`', () => {
    assert.deepEqual(readRelayNotice('webhook delivery:17'), { outbox: 'webhook delivery', slot: 17 });
    assert.deepEqual(readRelayNotice('webhook delivery'), { outbox: 'webhook delivery' });
    assert.deepEqual(readRelayNotice('webhook delivery:64'), { outbox: 'webhook delivery:64' }, 'no slot 64');
    assert.deepEqual(readRelayNotice(':3'), { outbox: ':3' });
  });

  it('wakes the holder of the slot named, and no other relay', () => {
    assert.deepEqual(noticeFor('message:5', outboxes, holding(4, 5)), { outbox: 'message' });
    assert.equal(noticeFor('message:6', outboxes, holding(4, 5)), 'another relay');
    assert.equal(noticeFor('message:5', outboxes, holding()), 'another relay', 'a relay holding nothing');
  });

  it('wakes every relay for a bare outbox, and reads every outbox for a notice naming none of its', () => {
    assert.deepEqual(noticeFor('message', outboxes, holding()), { outbox: 'message' });
    assert.equal(noticeFor('', outboxes, holding(1)), 'every outbox');
    assert.equal(noticeFor('campaign:1', outboxes, holding(1)), 'every outbox');
    assert.equal(noticeFor('campaign', outboxes, holding(1)), 'every outbox');
  });

  it("takes an outbox's own name before a slot", () => {
    assert.deepEqual(noticeFor('odd:7', outboxes, holding()), { outbox: 'odd:7' });
    assert.deepEqual(noticeFor('odd:7:3', outboxes, holding(3)), { outbox: 'odd:7' });
  });

  it('names the slot by the expression the reads use', () => {
    assert.ok(inSlots('w.workspace_id', '$3').includes(`${slotOf('w.workspace_id')} = ANY($3::int[])`));
    const [sql, params] = relayNotice('message', '00000000-0000-4000-8000-000000000001');
    assert.ok(sql.includes(slotOf('$3::uuid')), sql);
    assert.deepEqual(params, [RELAY_CHANNEL, 'message', '00000000-0000-4000-8000-000000000001']);
    assert.deepEqual(relayNotice('message'), ['SELECT pg_notify($1, $2)', [RELAY_CHANNEL, 'message']]);
    const bound: unknown[] = [];
    assert.ok(relayWakeUp(bound, deliveryFanOut).includes(`DISTINCT ${slotOf('workspace_id')}`));
    assert.deepEqual(bound, [RELAY_CHANNEL, 'webhook delivery']);
  });
});
