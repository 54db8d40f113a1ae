import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createDeliveryActivities, type AttemptInput } from '../../activities/deliver';
import { httpPost } from '../../activities/http-post';
import { RETRY_AFTER_MAX_MS } from '../../domain/webhooks/delivery-rules';
import { createEndpoint } from '../../domain/webhooks/operations/endpoint-create';
import { noCanceller } from '../../tooling/services';
import { deliverWebhookWorkflow } from '../../workflows';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { leadCreatedDelivery } from '../helpers/deliveries';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { startReceiver, type Answer, type Receiver } from '../helpers/receiver';
import { timeSkippingEnvironment } from '../helpers/time-skipping';
import { workflowCode } from '../helpers/workflow-code';
import { testServices } from '../../tooling/services';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The receiver's Retry-After, through the real attempt activity, a loopback receiver and PostgreSQL,
 * with the delivery workflow on Temporal's time-skipping server: the waits are real timers, skipped.
 */
describe("retries that listen: the receiver's Retry-After on 429 and 503 (time-skipping)", () => {
  let t: TestDatabase;
  let env: TestWorkflowEnvironment;
  let rx: Receiver;
  let workspaceId: string;
  let endpointId: string;
  /** The answers to the next attempts, in order; once spent, 204. */
  let answers: Answer[] = [];
  const secretsKey = Buffer.alloc(32, 7);
  let n = 0;

  before(async () => {
    env = await timeSkippingEnvironment();
    t = await freshDatabase();
    rx = await startReceiver(() => answers.shift() ?? { status: 204 });
    workspaceId = (await workspaceWithKey(t.db)).workspace.id;
    const e = await asOperator(
      testServices(t.db, {
        webhooks: { secretsKey, allowPrivateTargets: true, cancelWorkflows: noCanceller },
      }),
      createEndpoint,
      { url: rx.url, events: ['lead.created'] },
      { workspaceId },
    );
    rx.setSecret(e.secret);
    endpointId = e.id;
  });
  after(async () => {
    await rx.close();
    await t.drop();
    await env?.teardown();
  });

  /**
   * Delivers one event through the workflow with the real activity, answering `script` in turn:
   * when each attempt came (skipped time, from the first), and the `next_attempt_at` each recorded
   * measured from the end of its attempt.
   */
  async function deliver(script: Answer[]) {
    answers = [...script];
    const deliveryId = await leadCreatedDelivery(t.db, workspaceId, endpointId);
    const real = createDeliveryActivities({
      db: t.db,
      http: httpPost,
      clock: () => new Date(),
      secretsKey,
      allowPrivateTargets: true,
      cancelWorkflows: noCanceller,
    });
    const at: number[] = [];
    const recordedWaits: (number | null)[] = [];
    const taskQueue = `retry-after-${++n}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      ...workflowCode(),
      activities: {
        attemptDelivery: async (input: AttemptInput) => {
          at.push(await env.currentTimeMs());
          const out = await real.attemptDelivery(input);
          const endedAt = Date.now();
          const [row] = await t.db.query<{ next_attempt_at: Date | null }[]>(
            'SELECT next_attempt_at FROM webhook_deliveries WHERE id = $1',
            [deliveryId],
          );
          recordedWaits.push(row!.next_attempt_at ? row!.next_attempt_at.getTime() - endedAt : null);
          return out;
        },
      },
    });
    const result = await worker.runUntil(
      env.client.workflow.execute(deliverWebhookWorkflow, {
        taskQueue,
        workflowId: `webhook-delivery:retry-after-${n}`,
        args: [{ deliveryId, generation: 0, firstAttempt: 1 }],
      }),
    );
    const [row] = await t.db.query<{ status: string; attempts: number }[]>(
      'SELECT status, attempts FROM webhook_deliveries WHERE id = $1',
      [deliveryId],
    );
    return { result, row: row!, offsets: at.map((x) => x - at[0]!), recordedWaits };
  }

  /** `actual` is `expected` give or take `slack` ms. */
  const about = (actual: number | null | undefined, expected: number, slack: number, what: string) =>
    assert.ok(
      actual !== null && actual !== undefined && Math.abs(actual - expected) <= slack,
      `${what}: ${actual} ms, expected about ${expected} ms`,
    );

  it('waits as long as a 503 asks in seconds (2 min, not the ladder’s 30 s), shown in next_attempt_at; the attempt counts', async () => {
    const { result, row, offsets, recordedWaits } = await deliver([
      { status: 503, headers: { 'retry-after': '120' } },
    ]);
    assert.deepEqual(result, { outcome: 'succeeded', attempts: 2 });
    assert.deepEqual(row, { status: 'SUCCEEDED', attempts: 2 });
    about(offsets[1], 2 * MINUTE, 3 * SECOND, 'attempt 2');
    about(recordedWaits[0], 2 * MINUTE, 2 * SECOND, 'next_attempt_at after attempt 1');
  });

  it('reads a 429’s Retry-After as an HTTP date', async () => {
    const date = new Date(Date.now() + 10 * MINUTE).toUTCString();
    const { result, offsets, recordedWaits } = await deliver([
      { status: 429, headers: { 'retry-after': date } },
    ]);
    assert.deepEqual(result, { outcome: 'succeeded', attempts: 2 });
    // An HTTP date has whole seconds.
    about(offsets[1], 10 * MINUTE, 4 * SECOND, 'attempt 2');
    about(recordedWaits[0], 10 * MINUTE, 3 * SECOND, 'next_attempt_at after attempt 1');
  });

  it('caps a longer wait at one hour', async () => {
    assert.equal(RETRY_AFTER_MAX_MS, HOUR);
    const { result, offsets, recordedWaits } = await deliver([
      { status: 503, headers: { 'retry-after': '86400' } },
      { status: 503, headers: { 'retry-after': new Date(Date.now() + 48 * HOUR).toUTCString() } },
    ]);
    assert.deepEqual(result, { outcome: 'succeeded', attempts: 3 });
    about(offsets[1], HOUR, 3 * SECOND, 'attempt 2');
    about(offsets[2]! - offsets[1]!, HOUR, 3 * SECOND, 'attempt 3, capped again (not the ladder’s 5 min)');
    about(recordedWaits[0], HOUR, 2 * SECOND, 'next_attempt_at after attempt 1');
  });

  it('keeps the ladder’s step when it is the longer, and ignores Retry-After on other statuses or unreadable', async () => {
    const { result, offsets } = await deliver([
      { status: 429, headers: { 'retry-after': '5' } },
      { status: 500, headers: { 'retry-after': '1200' } },
      { status: 503, headers: { 'retry-after': 'soon' } },
    ]);
    assert.deepEqual(result, { outcome: 'succeeded', attempts: 4 });
    // The ladder: 30 s, 5 min, 30 min.
    about(offsets[1], 30 * SECOND, 3 * SECOND, 'attempt 2 (asked 5 s)');
    about(offsets[2]! - offsets[1]!, 5 * MINUTE, 3 * SECOND, 'attempt 3 (a 500 asked 20 min)');
    about(offsets[3]! - offsets[2]!, 30 * MINUTE, 3 * SECOND, 'attempt 4 (asked "soon")');
  });

  it('never adds an attempt: a Retry-After on the last rung ends the delivery', async () => {
    const asks: Answer = { status: 503, headers: { 'retry-after': '60' } };
    const { result, row, offsets } = await deliver(Array.from({ length: 7 }, () => asks));
    assert.deepEqual(result, { outcome: 'exhausted', attempts: 7 });
    assert.deepEqual(row, { status: 'EXHAUSTED', attempts: 7 });
    // 60 s instead of the first 30 s; the rest of the ladder as it is.
    about(offsets[1], MINUTE, 3 * SECOND, 'attempt 2');
    about(offsets[6]! - offsets[1]!, 22 * HOUR + 35 * MINUTE, 10 * SECOND, 'attempts 3 to 7');
  });
});
