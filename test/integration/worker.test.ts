import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { pingWorkflow } from '../../workflows';
import { createPingActivities } from '../../activities/ping';
import { connectWorker, createWorker } from '../../worker/worker';
import { servingAsCurrent, testVersion } from '../helpers/workflow-code';

const address = () => {
  const a = process.env.TEST_TEMPORAL_ADDRESS;
  if (!a) throw new Error('TEST_TEMPORAL_ADDRESS is not set: run the tests with `npm test`');
  return a;
};

describe('worker against a real Temporal dev server', () => {
  let worker: Worker;
  let running: Promise<void>;
  let nativeConnection: NativeConnection;
  let connection: Connection;
  const taskQueue = `smoke-${process.pid}`;

  before(async () => {
    nativeConnection = await connectWorker(address());
    worker = await createWorker({
      connection: nativeConnection,
      namespace: 'default',
      taskQueue,
      activities: createPingActivities({ clock: () => new Date() }),
      attemptSlots: 1,
      deploymentVersion: testVersion(taskQueue),
    });
    running = worker.run();
    connection = await Connection.connect({ address: address() });
    await servingAsCurrent(new Client({ connection, namespace: 'default' }), taskQueue);
  });
  after(async () => {
    worker.shutdown();
    await running;
    await nativeConnection.close();
    await connection.close();
  });

  it('runs a workflow with an activity round trip', async () => {
    const client = new Client({ connection, namespace: 'default' });
    const result = await client.workflow.execute(pingWorkflow, {
      taskQueue,
      workflowId: `ping:${Date.now()}`,
      args: ['hello'],
    });
    assert.match(result, /^pong: hello \(\d{4}-\d{2}-\d{2}T/);
  });
});
