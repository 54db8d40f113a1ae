import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { endpointSlots } from '../../activities/endpoint-slots';

type Slots = ReturnType<typeof endpointSlots>;

/** Asks for a slot at endpoint `e` and logs `<name>:slot` or `<name>:busy` once answered. */
const logged = (slots: Slots, log: string[]) => (name: string, first: boolean) =>
  slots.take('e', first).then((s) => {
    log.push(`${name}:${s === undefined ? 'busy' : 'slot'}`);
    return s;
  });

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

  it('serves a first attempt ahead of the retries waiting, and a full queue of retries gives one up for it', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let t = 0;
      const slots = endpointSlots(2, () => t);
      const a = (await slots.take('e'))!;
      const b = (await slots.take('e'))!;
      const order: string[] = [];
      const waiter = logged(slots, order);
      const retry1 = waiter('retry1', false);
      const retry2 = waiter('retry2', false);
      assert.equal(await slots.take('e', false), undefined, 'a third retry finds the queue full');
      const first1 = waiter('first1', true);
      await retry2;
      assert.deepEqual(order, ['retry2:busy'], 'the newest retry gave its place to the first attempt');
      const first2 = waiter('first2', true);
      await retry1;
      assert.deepEqual(order, ['retry2:busy', 'retry1:busy'], 'and the next first attempt took the other');
      assert.equal(await slots.take('e', true), undefined, 'first attempts do not displace each other');
      t = 50;
      slots.give('e', a);
      t = 60;
      slots.give('e', b);
      assert.deepEqual(await Promise.all([first1, first2]), [50, 60], 'first come, first served');
    } finally {
      mock.timers.reset();
    }
  });

  it('queues a first attempt behind the first attempts already waiting, ahead of retries', async () => {
    let t = 0;
    const slots = endpointSlots(3, () => t);
    const held = [(await slots.take('e'))!, (await slots.take('e'))!, (await slots.take('e'))!];
    const [retry, first1, first2] = [slots.take('e', false), slots.take('e', true), slots.take('e', true)];
    // Each slot given back at its own time: the slot a waiter gets says when it was served.
    for (const [i, slot] of held.entries()) {
      t = 10 * (i + 1);
      slots.give('e', slot);
    }
    assert.deepEqual(await Promise.all([first1, first2, retry]), [10, 20, 30]);
  });
});
