import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { AttemptInput, AttemptOutcome } from '../../activities/deliver';
import { deliverWebhookWorkflow } from '../../workflows';
import { timeSkippingEnvironment } from '../helpers/time-skipping';
import { workflowCode } from '../helpers/workflow-code';

type Scripted = (input: AttemptInput) => AttemptOutcome['outcome'];

/** What the real activity answers for a failure that may be retried: retry while the ladder has a next step. */
const failing: Scripted = (input) => (input.nextDelayMs === null ? 'exhausted' : 'retry');

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** When each attempt happens, measured from the first: the ladder 30 s, 5 min, 30 min, 2 h, 8 h, 12 h. */
const LADDER_OFFSETS = [
  0,
  30 * SECOND,
  5 * MINUTE + 30 * SECOND,
  35 * MINUTE + 30 * SECOND,
  2 * HOUR + 35 * MINUTE + 30 * SECOND,
  10 * HOUR + 35 * MINUTE + 30 * SECOND,
  22 * HOUR + 35 * MINUTE + 30 * SECOND,
];

describe('delivery workflow under time-skipping: the 22.6-hour ladder', () => {
  let env: TestWorkflowEnvironment;
  let n = 0;
  before(async () => {
    env = await timeSkippingEnvironment();
  });
  after(() => env?.teardown());

  /** Runs one delivery workflow with a scripted attemptDelivery, recording each attempt and its (skipped) time. */
  async function deliver(
    script: Scripted,
    opts: { firstAttempt?: number; cancelAfterAttempts?: number } = {},
  ) {
    const taskQueue = `ladder-${++n}`;
    const attempts: { input: AttemptInput; at: number }[] = [];
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      ...workflowCode(),
      activities: {
        attemptDelivery: async (input: AttemptInput): Promise<AttemptOutcome> => {
          attempts.push({ input, at: await env.currentTimeMs() });
          return { outcome: script(input) };
        },
      },
    });
    return worker.runUntil(async () => {
      const handle = await env.client.workflow.start(deliverWebhookWorkflow, {
        taskQueue,
        workflowId: `webhook-delivery:test-${n}`,
        args: [{ deliveryId: `d-${n}`, generation: 0, firstAttempt: opts.firstAttempt ?? 1 }],
      });
      if (opts.cancelAfterAttempts !== undefined) {
        const deadline = Date.now() + 10_000;
        while (attempts.length < opts.cancelAfterAttempts && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 20));
        await handle.cancel();
      }
      let result: Awaited<ReturnType<typeof handle.result>> | undefined;
      let error: unknown;
      try {
        result = await handle.result();
      } catch (err) {
        error = err;
      }
      const first = attempts[0]?.at ?? 0;
      return { result, error, attempts, offsets: attempts.map((a) => a.at - first) };
    });
  }

  it('makes seven attempts at 0, 30 s, 5 min 30 s, 35 min 30 s, 2 h 35 min 30 s, 10 h 35 min 30 s and 22 h 35 min 30 s, then gives up', async () => {
    const { result, attempts, offsets } = await deliver(failing);
    assert.deepEqual(result, { outcome: 'exhausted', attempts: 7 });
    assert.deepEqual(
      attempts.map((a) => a.input.attempt),
      [1, 2, 3, 4, 5, 6, 7],
    );
    assert.deepEqual(
      attempts.map((a) => a.input.nextDelayMs),
      [30 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 8 * HOUR, 12 * HOUR, null],
    );
    offsets.forEach((offset, i) => {
      const expected = LADDER_OFFSETS[i]!;
      assert.ok(
        offset >= expected && offset < expected + 5 * SECOND,
        `attempt ${i + 1} at ${offset} ms, expected ${expected} ms`,
      );
    });
    assert.ok(offsets[6]! / HOUR > 22.5 && offsets[6]! / HOUR < 22.7, 'about 22.6 hours in all');
  });

  it('stops the ladder when attempt 3 succeeds', async () => {
    const { result, attempts, offsets } = await deliver((input) =>
      input.attempt === 3 ? 'succeeded' : 'retry',
    );
    assert.deepEqual(result, { outcome: 'succeeded', attempts: 3 });
    assert.equal(attempts.length, 3);
    assert.ok(offsets[2]! >= LADDER_OFFSETS[2]! && offsets[2]! < LADDER_OFFSETS[2]! + 5 * SECOND);
  });

  it('ends at once when an attempt gives up (a 4xx other than 408 and 429)', async () => {
    const { result, attempts } = await deliver(() => 'exhausted');
    assert.deepEqual(result, { outcome: 'exhausted', attempts: 1 });
    assert.equal(attempts.length, 1);
  });

  it('ends at once when the delivery was cancelled in the database', async () => {
    const { result, attempts } = await deliver((input) => (input.attempt === 2 ? 'cancelled' : 'retry'));
    assert.deepEqual(result, { outcome: 'cancelled', attempts: 2 });
    assert.equal(attempts.length, 2);
  });

  it('continues the attempt count in a resend (a new ladder of seven)', async () => {
    const { result, attempts } = await deliver(failing, { firstAttempt: 8 });
    assert.deepEqual(result, { outcome: 'exhausted', attempts: 14 });
    assert.deepEqual(
      attempts.map((a) => a.input.attempt),
      [8, 9, 10, 11, 12, 13, 14],
    );
  });

  it('is cancelled while sleeping between attempts, and makes no further attempt', async () => {
    const { error, attempts } = await deliver(failing, { cancelAfterAttempts: 1 });
    assert.ok(error instanceof WorkflowFailedError, String(error));
    assert.equal(error.cause?.name, 'CancelledFailure');
    assert.equal(attempts.length, 1);
  });
});
