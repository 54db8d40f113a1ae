import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../../tooling/processes';
import { scheduleIds } from '../../infra/temporal/workflow-ids';
import { ensureSchedules } from '../../infra/temporal/schedules';
import { createLogger } from '../../infra/logger';
import type { reconcileDeliveriesWorkflow } from '../../workflows/maintenance';
import { intakeBody, postLead } from '../helpers/leads';
import { startReceiver, type Answer, type Receiver } from '../helpers/receiver';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

/**
 * Deliveries nothing would move again: their workflow was terminated (or lost with Temporal's data)
 * while the row still waits. The reconcile schedule, triggered here instead of waiting five minutes,
 * restarts them where their ladder stood, or ends them when it is spent, and audits why.
 */
describe('the reconcile schedule', () => {
  let s: WebhookStack;
  let rx: Receiver;
  let answer: Answer = { status: 500 };
  before(async () => {
    s = await startWebhookStack();
    rx = await startReceiver(() => answer);
    await s.endpoint(rx, ['lead.created']);
    await ensureSchedules(s.client, s.config.temporalTaskQueue, createLogger('test', 'error'));
    // Runs only when a test triggers it: a run of its own every five minutes (at :00, :05, ...) could
    // take a test's work first, or hold the triggered run back (overlap SKIP), and the test would wait
    // for a run that never comes. A paused schedule still runs when triggered.
    await s.client.schedule
      .getHandle(scheduleIds(s.config.temporalTaskQueue).reconcile)
      .pause('test: runs only when triggered');
  });
  after(async () => {
    for (const id of Object.values(scheduleIds(s.config.temporalTaskQueue)))
      await s.client.schedule
        .getHandle(id)
        .delete()
        .catch(() => undefined);
    await rx.close();
    await s.stop();
  });

  /** A delivery whose first attempt failed, whose workflow was then terminated, now long overdue. */
  const orphanedDelivery = async () => {
    answer = { status: 500 };
    const lead = await postLead(s.app, s.key, intakeBody());
    const d = await s.waitForDelivery(
      `event_id IN (SELECT id FROM events WHERE data->>'lead_id' = $1)`,
      [lead.body.data.id],
      (x) => x.status === 'FAILED',
    );
    await s.client.workflow.getHandle(`webhook-delivery:${d.id}`).terminate('test: a lost workflow');
    await s.db.query(
      `UPDATE webhook_deliveries SET next_attempt_at = clock_timestamp() - interval '11 minutes' WHERE id = $1`,
      [d.id],
    );
    return d;
  };

  const reconcileRun = async () => {
    const id = scheduleIds(s.config.temporalTaskQueue).reconcile;
    const handle = s.client.schedule.getHandle(id);
    const before = (await handle.describe()).info.recentActions.length;
    await handle.trigger();
    const action = await waitFor('the triggered run', async () => {
      const actions = (await handle.describe()).info.recentActions;
      return actions.length > before ? actions.at(-1) : undefined;
    });
    return s.client.workflow
      .getHandle<typeof reconcileDeliveriesWorkflow>(
        action.action.workflow.workflowId,
        action.action.workflow.firstExecutionRunId,
      )
      .result();
  };

  it('restarts a delivery whose workflow was terminated, at the attempt it had reached, and audits why', async () => {
    const d = await orphanedDelivery();
    answer = { status: 204 };
    const report = await reconcileRun();
    assert.equal(report.restarted, 1);
    const done = await s.waitForDelivery('id = $1', [d.id], (x) => x.status === 'SUCCEEDED');
    assert.equal(done.attempts, 2);
    const got = rx.received.filter((r) => r.headers['service-event-id'] === d.event_id);
    assert.deepEqual(
      got.map((r) => r.headers['service-delivery-attempt']),
      ['1', '2'],
    );
    const [row] = await s.db.query<{ reason: string; details: Record<string, unknown>; door: string }[]>(
      `SELECT door, reason, details FROM audit_log WHERE action = 'delivery.reconcile' AND details->>'delivery_id' = $1`,
      [d.id],
    );
    assert.equal(row!.door, 'activity');
    assert.equal(row!.reason, 'restarted at attempt 2');
    assert.equal(row!.details.workflow_status, 'TERMINATED');
  });

  it('ends a delivery whose ladder was spent when its workflow died, and leaves running ones alone', async () => {
    const spent = await orphanedDelivery();
    // Its ladder had reached the last rung: six more attempts on record.
    await s.db.query(
      `INSERT INTO webhook_attempts (delivery_id, number, started_at, duration_ms, response_status)
       SELECT $1, n, clock_timestamp(), 5, 500 FROM generate_series(2, 7) n`,
      [spent.id],
    );
    // Overdue on paper, but its workflow runs: slow, not stuck.
    const alive = await orphanedDelivery();
    await s.client.workflow.start('deliverWebhookWorkflow', {
      taskQueue: s.config.temporalTaskQueue,
      workflowId: `webhook-delivery:${alive.id}`,
      args: [{ deliveryId: alive.id, generation: 0, firstAttempt: 2, rung: 1 }],
    });
    answer = 'hang';
    const report = await reconcileRun();
    assert.equal(report.ended, 1);
    const [ended] = await s.deliveries('id = $1', [spent.id]);
    assert.equal(ended!.status, 'EXHAUSTED');
    assert.equal(ended!.next_attempt_at, null);
    const [audit] = await s.db.query<{ reason: string }[]>(
      `SELECT reason FROM audit_log WHERE action = 'delivery.reconcile' AND details->>'delivery_id' = $1`,
      [spent.id],
    );
    assert.equal(audit!.reason, 'ended: its ladder was spent');
    const untouched = await s.db.query(
      `SELECT 1 FROM audit_log WHERE action = 'delivery.reconcile' AND details->>'delivery_id' = $1`,
      [alive.id],
    );
    assert.equal(untouched.length, 0);
    answer = { status: 204 };
  });

  it('restarts a delivery left PENDING by a workflow that closed before recording an attempt', async () => {
    const d = await orphanedDelivery();
    // As if the worker died mid-attempt and the run was then terminated: nothing recorded.
    await s.db.query('DELETE FROM webhook_attempts WHERE delivery_id = $1', [d.id]);
    await s.db.query(
      `UPDATE webhook_deliveries SET status = 'PENDING', attempts = 0, next_attempt_at = NULL,
              workflow_started_at = NULL, created_at = clock_timestamp() - interval '11 minutes'
        WHERE id = $1`,
      [d.id],
    );
    answer = { status: 204 };
    // The relay cannot help: Temporal refuses its start over the closed run.
    const report = await reconcileRun();
    assert.ok(report.restarted >= 1);
    const done = await s.waitForDelivery('id = $1', [d.id], (x) => x.status === 'SUCCEEDED');
    assert.equal(done.attempts, 1);
    const [row] = await s.db.query<{ reason: string }[]>(
      `SELECT reason FROM audit_log WHERE action = 'delivery.reconcile' AND details->>'delivery_id' = $1`,
      [d.id],
    );
    assert.equal(row!.reason, 'restarted at attempt 1');
  });
});
