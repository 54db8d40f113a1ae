import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { endpointSlots } from '../../activities/endpoint-slots';

describe('attempts in flight per endpoint', () => {
  it('lets a quick endpoint’s extra attempt wait for a slot, and hands it the next one freed', async () => {
    let t = 0;
    const slots = endpointSlots(2, () => t);
    const a = (await slots.take('e'))!;
    await slots.take('e');
    let third: number | undefined;
    const waiting = slots.take('e').then((s) => (third = s));
    t = 50;
    slots.give('e', a);
    await waiting;
    assert.equal(third, 50, 'the waiter got the freed slot');
    assert.notEqual(await slots.take('other'), undefined, 'other endpoints are counted apart');
  });

  it('says busy at once when the oldest attempt has run a second: a slow receiver gets no waiters', async () => {
    let t = 0;
    const slots = endpointSlots(2, () => t);
    await slots.take('slow');
    await slots.take('slow');
    t = 1_000;
    assert.equal(await slots.take('slow'), undefined);
  });

  it('keeps at most `cap` waiters, and a waiter gives up after a second', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const slots = endpointSlots(1, () => 0);
      await slots.take('e');
      const w1 = slots.take('e');
      assert.equal(await slots.take('e'), undefined, 'the second waiter is refused');
      mock.timers.tick(1_000);
      assert.equal(await w1, undefined, 'the waiter timed out');
    } finally {
      mock.timers.reset();
    }
  });
});
