import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { NO_METRICS } from '../../activities/activity-metrics';
import { createDeliveryActivities } from '../../activities/deliver';
import { httpPost } from '../../activities/http-post';
import { createEndpoint } from '../../domain/webhooks/operations/endpoint-create';
import { waitFor } from '../../tooling/processes';
import { noCanceller, testServices } from '../../tooling/services';
import { deliverWebhookWorkflow } from '../../workflows';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { leadCreatedDelivery } from '../helpers/deliveries';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startTcpProxy, type TcpProxy } from '../../tooling/tcp-proxy';
import { temporalAddress } from '../helpers/webhook-stack';
import { servingAsCurrent, versioned, workflowCode } from '../helpers/workflow-code';

/**
 * Issue 57 with the real SDK on the dev server: the engine goes slow (here the worker's connection to it
 * stalls; on the cluster, shard writes queued) while a delivery's attempt is with a slow receiver, so
 * the attempt's workflow task times out. When the worker hears, the SDK evicts the workflow and cancels
 * its local activity, whose request has left; the workflow, replayed from the task Temporal retries,
 * runs the attempt again.
 */
describe('an attempt whose workflow task times out while its request is out', () => {
  let t: TestDatabase;
  let rx: Receiver;
  let proxy: TcpProxy;
  let nativeConnection: NativeConnection;
  let connection: Connection;
  let workspaceId: string;
  let endpointId: string;
  const secretsKey = Buffer.alloc(32, 5);
  before(async () => {
    proxy = await startTcpProxy(temporalAddress());
    [t, nativeConnection, connection] = await Promise.all([
      freshDatabase(),
      // The worker reaches Temporal through the proxy; the test's own client does not.
      NativeConnection.connect({ address: proxy.address }),
      Connection.connect({ address: temporalAddress() }),
    ]);
    // A slow receiver: every POST is held until the test answers it.
    rx = await startReceiver(() => 'hang');
    workspaceId = (await workspaceWithKey(t.db)).workspace.id;
    const webhooks = { secretsKey, allowPrivateTargets: true, cancelWorkflows: noCanceller };
    const e = await asOperator(
      testServices(t.db, { webhooks }),
      createEndpoint,
      { url: rx.url, events: ['lead.created'] },
      { workspaceId },
    );
    rx.setSecret(e.secret);
    endpointId = e.id;
  });
  after(async () => {
    await rx?.close();
    await connection?.close();
    await nativeConnection?.close();
    await proxy?.close();
    await t?.drop();
  });

  it('is sent once: the first run records the answer though Temporal cancelled it, and the re-run answers from that record', async () => {
    const reruns: string[] = [];
    const taskQueue = `task-timeout-${randomUUID().slice(0, 8)}`;
    const worker = await Worker.create({
      connection: nativeConnection,
      taskQueue,
      ...workflowCode(),
      ...versioned(taskQueue),
      activities: createDeliveryActivities({
        db: t.db,
        http: httpPost,
        clock: () => new Date(),
        secretsKey,
        allowPrivateTargets: true,
        cancelWorkflows: noCanceller,
        metrics: { ...NO_METRICS, attemptRerun: (found) => reruns.push(found) },
      }),
    });
    const deliveryId = await leadCreatedDelivery(t.db, workspaceId, endpointId);
    const [{ event_id: eventId }] = await t.db.query<[{ event_id: string }]>(
      'SELECT event_id FROM webhook_deliveries WHERE id = $1',
      [deliveryId],
    );
    const sent = () => rx.received.filter((r) => r.headers['service-event-id'] === eventId).length;
    await worker.runUntil(async () => {
      const client = new Client({ connection });
      await servingAsCurrent(client, taskQueue);
      const handle = await client.workflow.start(deliverWebhookWorkflow, {
        taskQueue,
        workflowId: `webhook-delivery:${deliveryId}`,
        args: [{ deliveryId, generation: 0, firstAttempt: 1 }],
        // The task times out 2 s into the stall rather than 10.
        workflowTaskTimeout: '2 seconds',
      });

      await waitFor('the POST to be held', async () => rx.hangingNow() === 1, 10_000, 20);
      proxy.stall();
      await waitFor(
        'the attempt’s workflow task to time out',
        async () =>
          (await handle.fetchHistory()).events?.some(
            (e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
          ) ?? false,
        15_000,
        100,
      );
      proxy.resume();
      await waitFor(
        'the replayed workflow to run the attempt again',
        async () => reruns.includes('in_flight'),
        30_000,
        50,
      );
      assert.equal(sent(), 1, 'the re-run sent nothing while the first was out');
      assert.equal(rx.hangingNow(), 1, 'the first request was not cut when its activity was cancelled');

      rx.answerHanging(204);
      assert.deepEqual(await handle.result(), { outcome: 'succeeded', attempts: 1 });
      assert.equal(sent(), 1, 'the receiver got one POST');
      const [d] = await t.db.query<{ status: string; attempts: number; sending_token: string | null }[]>(
        'SELECT status, attempts, sending_token FROM webhook_deliveries WHERE id = $1',
        [deliveryId],
      );
      assert.deepEqual(d, { status: 'SUCCEEDED', attempts: 1, sending_token: null });
    });
  });
});
