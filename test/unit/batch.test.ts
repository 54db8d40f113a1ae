import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batched } from '../../infra/batch';

describe('batched (group commit)', () => {
  it('runs calls made in the same turn together, each answered with its own result', async () => {
    const runs: number[][] = [];
    const double = batched(async (items: number[]) => {
      runs.push(items);
      return items.map((n) => n * 2);
    });
    assert.deepEqual(await Promise.all([1, 2, 3].map(double)), [2, 4, 6]);
    assert.deepEqual(await double(4), 8);
    assert.deepEqual(runs, [[1, 2, 3], [4]]);
  });

  it('splits more than `max` calls over several runs, in order', async () => {
    const runs: number[][] = [];
    const echo = batched(async (items: number[]) => {
      runs.push(items);
      return items;
    }, 2);
    assert.deepEqual(await Promise.all([1, 2, 3, 4, 5].map(echo)), [1, 2, 3, 4, 5]);
    assert.deepEqual(runs, [[1, 2], [3, 4], [5]]);
  });

  it("gives every call of a failed run the run's error, and the next run starts afresh", async () => {
    let fail = true;
    const flaky = batched(async (items: string[]) => {
      if (fail) throw new Error('database unavailable');
      return items;
    });
    const results = await Promise.allSettled(['a', 'b'].map(flaky));
    assert.deepEqual(
      results.map((r) => r.status === 'rejected' && (r.reason as Error).message),
      ['database unavailable', 'database unavailable'],
    );
    fail = false;
    assert.equal(await flaky('c'), 'c');
  });
});
