import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { repoRoot } from '../../tooling/paths';
import { faultHookArgs } from '../../tooling/fault-hook-args';
import { waitFor } from '../../tooling/processes';
import { intakeBody, postLead } from '../helpers/leads';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

/** The worker as production runs it: its own process, killed and restarted by the test. */
function spawnWorker(s: WebhookStack, env: Record<string, string> = {}) {
  // RELAY_CRASH_AT takes effect through the fault hook (tooling/fault-hooks.mjs).
  const child = spawn(process.execPath, ['--import', 'tsx', ...faultHookArgs(), 'worker/main.ts'], {
    cwd: repoRoot(),
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: s.config.databaseUrl,
      TEMPORAL_ADDRESS: s.config.temporalAddress,
      TEMPORAL_TASK_QUEUE: s.config.temporalTaskQueue,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: 'error',
      ...env,
    },
    stdio: 'ignore',
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exit };
}

const kill = async (w: { child: ChildProcess; exit: Promise<number | null> }) => {
  w.child.kill('SIGKILL');
  await w.exit;
};

describe('crash safety of webhook delivery', () => {
  let s: WebhookStack;
  let rx: Receiver;
  before(async () => {
    s = await startWebhookStack({ inProcessWorker: false });
    rx = await startReceiver((r) => {
      const attempt = r.headers['service-delivery-attempt'];
      // Leads whose email says so fail their first attempt, so their delivery waits in the ladder.
      return { status: r.body.includes('fail-first') && attempt === '1' ? 500 : 204 };
    });
    await s.endpoint(rx, ['lead.created']);
  });
  after(async () => {
    await rx.close();
    await s.stop();
  });

  const createdEvent = async () => {
    const res = await postLead(s.app, s.key, intakeBody());
    const [d] = await s.deliveries(
      `event_type = 'lead.created' AND event_id IN (SELECT id FROM events WHERE data->>'lead_id' = $1)`,
      [res.body.data.id],
    );
    return d!;
  };

  it('a relay killed between commit and workflow start delays the delivery but loses nothing', async () => {
    const d = await createdEvent();
    const crashed = spawnWorker(s, { RELAY_CRASH_AT: 'before-start' });
    assert.equal(await crashed.exit, 86, 'the relay died at that very point');
    const [still] = await s.deliveries('id = $1', [d.id]);
    assert.equal(still!.status, 'PENDING');
    assert.equal(rx.received.filter((r) => r.headers['service-event-id'] === d.event_id).length, 0);
    const worker = spawnWorker(s);
    try {
      await s.waitForDelivery('id = $1', [d.id], (x) => x.status === 'SUCCEEDED', 60_000);
    } finally {
      await kill(worker);
    }
    assert.equal(rx.received.filter((r) => r.headers['service-event-id'] === d.event_id).length, 1);
  });

  it('a relay killed between workflow start and marking it started does not start it twice', async () => {
    const d = await createdEvent();
    const crashed = spawnWorker(s, { RELAY_CRASH_AT: 'before-mark' });
    assert.equal(await crashed.exit, 87);
    const worker = spawnWorker(s);
    try {
      await s.waitForDelivery(
        'id = $1 AND workflow_started_at IS NOT NULL',
        [d.id],
        (x) => x.status === 'SUCCEEDED',
        60_000,
      );
    } finally {
      await kill(worker);
    }
    const runs = [];
    for await (const w of s.client.workflow.list({ query: `WorkflowId = 'webhook-delivery:${d.id}'` }))
      runs.push(w);
    assert.equal(runs.length, 1, 'one workflow run for the delivery');
    const seen = rx.received.filter((r) => r.headers['service-event-id'] === d.event_id);
    assert.ok(seen.length >= 1 && seen.every((r) => r.headers['service-delivery-attempt'] === '1'));
  });

  it('a worker killed mid-ladder resumes where it was after a restart; each attempt arrives once', async () => {
    const worker = spawnWorker(s);
    let d: Awaited<ReturnType<typeof createdEvent>>;
    try {
      const res = await postLead(s.app, s.key, intakeBody({ email: 'fail-first@example.com' }));
      [d] = (await s.deliveries(
        `event_id IN (SELECT id FROM events WHERE type = 'lead.created' AND data->>'lead_id' = $1)`,
        [res.body.data.id],
      )) as [typeof d];
      await s.waitForDelivery(
        'id = $1',
        [d.id],
        (x) => x.status === 'FAILED' || x.status === 'SUCCEEDED',
        60_000,
      );
      // Mid-ladder: Temporal has the first attempt's result and the workflow sleeps on its timer.
      await waitFor(
        'the workflow to sleep between attempts',
        async () => {
          const history = await s.client.workflow.getHandle(`webhook-delivery:${d.id}`).fetchHistory();
          return history.events?.some((e) => e.timerStartedEventAttributes) ?? false;
        },
        30_000,
        100,
      );
    } finally {
      await kill(worker);
    }
    const [afterKill] = await s.deliveries('id = $1', [d.id]);
    assert.equal(afterKill!.status, 'FAILED', 'killed while waiting for attempt 2');
    const restarted = spawnWorker(s);
    try {
      await s.waitForDelivery('id = $1', [d.id], (x) => x.status === 'SUCCEEDED', 60_000);
    } finally {
      await kill(restarted);
    }
    const attempts = rx.received
      .filter((r) => r.headers['service-event-id'] === d.event_id)
      .map((r) => r.headers['service-delivery-attempt']);
    assert.deepEqual(attempts, ['1', '2']);
    const [done] = await s.deliveries('id = $1', [d.id]);
    assert.equal(done!.attempts, 2);
  });
});
