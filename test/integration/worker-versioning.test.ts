import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { loadConfig } from '../../infra/config';
import { createLogger } from '../../infra/logger';
import { waitFor } from '../../tooling/processes';
import { runWorker, type RunningWorker } from '../../worker/run';
import { makeCurrent } from '../../worker/versioning';
import { intakeBody, postLead } from '../helpers/leads';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

const { EventType } = temporal.api.enums.v1;

/**
 * The worker as a version of its Worker Deployment (docs/temporal.md, "Deploys"), on the dev server: the
 * version it names itself, who makes a version current, and the relay of a version not yet current.
 */
describe('the worker under Worker Versioning', () => {
  let s: WebhookStack;
  let receiver: Receiver;
  let next: RunningWorker | undefined;

  before(async () => {
    s = await startWebhookStack();
    receiver = await startReceiver();
  });
  after(async () => {
    await next?.shutdown();
    await s.stop();
    await receiver.close();
  });

  const current = async () => {
    const { workerDeploymentInfo } = await s.client.workflowService.describeWorkerDeployment({
      namespace: 'default',
      deploymentName: s.config.temporalTaskQueue,
    });
    return workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId;
  };
  const eventsOf = async (handle: WorkflowHandle) => (await handle.fetchHistory()).events ?? [];

  it('names its version after the workflow code, in a deployment named after its task queue, and makes it current at start', async () => {
    const v = s.worker!.deploymentVersion;
    assert.equal(v.deploymentName, s.config.temporalTaskQueue);
    assert.match(v.buildId, /^\d+\.\d+\.\d+\+[0-9a-f]{12}$/);
    assert.equal(await current(), v.buildId);
  });

  it('leaves a version started by-rollout to the rollout, and its relay starts no run on its own worker until it is current', async () => {
    const first = s.worker!.deploymentVersion;
    next = await runWorker(
      loadConfig({
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: s.config.databaseUrl,
        TEMPORAL_ADDRESS: s.config.temporalAddress,
        TEMPORAL_TASK_QUEUE: s.config.temporalTaskQueue,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        MAINTENANCE_SCHEDULES: 'false',
        WORKER_BUILD_ID: 'next',
        WORKER_SET_CURRENT: 'by-rollout',
      }),
      s.db,
      createLogger('test-worker', 'error'),
    );
    assert.equal(await current(), first.buildId, 'the running version stays current');
    // The first version's workers leave: only the new version's relay starts runs, and its worker is
    // not the current version, so each run waits for the version the rollout makes current.
    await s.worker!.shutdown();
    await s.endpoint(receiver, ['lead.created']);
    const lead = intakeBody();
    assert.equal((await postLead(s.app, s.key, lead)).status, 201);
    const d = await s.waitForDelivery("event_type = 'lead.created'", [], () => true);
    const handle = s.client.workflow.getHandle(`webhook-delivery:${d.id}`);
    const started = await waitFor(
      'the delivery workflow',
      () => handle.describe().catch(() => undefined),
      20_000,
      50,
    );
    assert.equal(started.status.name, 'RUNNING');
    assert.ok(
      !(await eventsOf(handle)).some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED),
      'no worker took its first task: it was not started eagerly on the version not current',
    );
    assert.equal(receiver.received.length, 0);

    await makeCurrent(s.client, next.deploymentVersion);
    await receiver.eventOf('lead.created', (data) => JSON.stringify(data).includes(lead.email));
    assert.equal(await handle.result().then((r: { outcome: string }) => r.outcome), 'succeeded');
    const completed = (await eventsOf(handle)).filter(
      (e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
    );
    assert.deepEqual(
      completed.map((e) => e.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId),
      completed.map(() => 'next'),
    );
  });
});
