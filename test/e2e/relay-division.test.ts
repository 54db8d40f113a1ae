import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import pg from 'pg';
import { readTemporalMetrics } from '../../bench/lib/temporal-metrics';
import { createWorkspace } from '../../domain/identity/operations/workspace-create';
import { createEndpoint } from '../../domain/webhooks/operations/endpoint-create';
import { createLogger } from '../../infra/logger';
import { repoRoot } from '../../tooling/paths';
import { freePort, waitFor } from '../../tooling/processes';
import { startServiceProcess, type ServiceProcess } from '../../tooling/service-process';
import { startTemporalDevServer, type TemporalDevServer } from '../../tooling/temporal-server';
import { startReceiver, type Receiver } from '../helpers/receiver';
import {
  arrivalsOf,
  commitInTurn,
  delivered,
  relayStarts,
  sharesOf,
  slotsDividedAmong,
  startCallsSince,
  assertKillStarts,
} from '../helpers/relay-division';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

/** Events per run: each start counted on the server must be a delivery's. */
const EVENTS = 1_000;
/**
 * Workspaces the events take turns in. The slots are by workspace, so with few of them one relay could
 * hold none: 32 fall in about 25 of the 64 slots, and one of three relays (holding a third of the
 * slots, drawn at random) holds none of those about once in 10,000 runs.
 */
const WORKSPACES = 32;

/**
 * The outbox relays of several worker processes (the service's worker entry, as `npm run worker` runs
 * it, from source) on one task queue and one database divide the rows: every delivery is started once,
 * as the Temporal server counts StartWorkflowExecution calls on its Prometheus page, by the relay that
 * holds its workspace's slot, and reaches the receiver once; a worker killed mid-run loses nothing.
 * A dev server of its own, whose counters no other test file's starts move.
 */
describe('the relays of several worker processes divide the outbox', () => {
  const log = createLogger('test', 'warn');
  const logDir = path.join(repoRoot(), '.data', `relay-division-${process.pid}`);
  let temporal: TemporalDevServer;
  let s: WebhookStack;
  let receiver: Receiver;
  let sql: pg.Pool;
  const workspaces: string[] = [];
  const workers: ServiceProcess[] = [];

  let named = 0;
  const addWorker = async () => {
    // Named before the first await: two started together get two log files.
    const name = `worker-${++named}`;
    const worker = await startServiceProcess('worker', {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: s.config.databaseUrl,
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_TASK_QUEUE: s.config.temporalTaskQueue,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        MAINTENANCE_SCHEDULES: 'false',
        WORKER_METRICS_PORT: String(await freePort()),
        // "worker running" is logged at info: the sign that it polls and its relay listens.
        LOG_LEVEL: 'info',
        // Three workers and this file's pools within PostgreSQL's 100 connections, beside other files'.
        DB_POOL_SIZE: '8',
      },
      logDir,
      log,
      name,
      fromSource: true,
    });
    workers.push(worker);
    return worker;
  };

  before(async () => {
    temporal = await startTemporalDevServer({ log, headless: true, metricsPort: await freePort() });
    s = await startWebhookStack({ inProcessWorker: false, env: { TEMPORAL_ADDRESS: temporal.address } });
    receiver = await startReceiver();
    sql = new pg.Pool({ connectionString: s.config.databaseUrl, max: 2 });
    for (let i = 1; i <= WORKSPACES; i++) {
      const w = await s.run(createWorkspace, { name: `Relay division ${i}`, timezone: 'Europe/London' });
      const e = await s.run(
        createEndpoint,
        { url: receiver.url, events: ['lead.created'] },
        { workspaceId: w.id },
      );
      // The receiver checks one secret (the signing tests check them); this one's will do, since
      // what is counted here is which events arrive, not their signatures.
      receiver.setSecret(e.secret);
      workspaces.push(w.id);
    }
    await Promise.all([addWorker(), addWorker()]);
    await Promise.all(workers.map((w) => w.ready));
  });

  after(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await sql?.end();
    await receiver?.close();
    await s?.stop();
    await temporal?.stop();
    rmSync(logDir, { recursive: true, force: true });
  });

  /**
   * With `n` workers, EVENTS events: delivered once each, started once each (the server's count), and
   * each relay started exactly the events of the workspaces in its slots.
   */
  const dividedRun = async (t: TestContext, n: number) => {
    const slots = await slotsDividedAmong(sql, n);
    const shares = await sharesOf(sql, slots, workspaces, EVENTS);
    assert.ok(
      shares.every((x) => x > 0),
      `each relay holds some of the workspaces: ${shares.join(', ')}`,
    );
    const before = await readTemporalMetrics(temporal.metricsUrl!);
    const startedBefore = await Promise.all(workers.map((w) => relayStarts(w.metricsUrl!)));
    const t0 = Date.now();
    const events = await commitInTurn(s.db, workspaces, EVENTS);
    const rows = await delivered(sql, receiver, `${EVENTS} deliveries`, events, 180_000);
    const seconds = (Date.now() - t0) / 1000;
    const { calls, refused, failed } = await startCallsSince(temporal.metricsUrl!, before, EVENTS);
    const started = (await Promise.all(workers.map((w) => relayStarts(w.metricsUrl!)))).map(
      (x, i) => x - startedBefore[i]!,
    );
    t.diagnostic(
      `${n} workers: ${EVENTS} deliveries in ${seconds.toFixed(1)} s; StartWorkflowExecution calls ` +
        `${calls} (${(calls / EVENTS).toFixed(3)} per delivery, ${refused} refused, failed ${JSON.stringify(failed)}); ` +
        `started by each relay: ${started.join(', ')} (their slots' share: ${shares.join(', ')})`,
    );
    // At least one call per delivery, since each was started in the window; a few more could be the
    // server's own (its system namespace's workflows), none a second relay's.
    assert.ok(
      calls >= EVENTS && calls <= EVENTS * 1.02,
      `StartWorkflowExecution calls: ${calls} for ${EVENTS}`,
    );
    assert.equal(refused, 0, 'no start of a row another relay had started');
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    assert.deepEqual(sorted(started), sorted(shares), 'each relay started the rows of its own slots');
    for (const [event, attempts] of arrivalsOf(receiver, events)) assert.deepEqual(attempts, ['1'], event);
    assert.ok(rows.every((d) => d.attempts === 1));
  };

  it('two workers: 1,000 events, each started once by the relay holding its slot and delivered once', async (t) => {
    await dividedRun(t, 2);
  });

  it('three workers: the same, the third taking its share of the slots', async (t) => {
    const third = await addWorker();
    await third.ready;
    await dividedRun(t, 3);
  });

  it('a worker killed mid-run: its slots are taken over, every event delivered, every row started once', async (t) => {
    await slotsDividedAmong(sql, 3);
    const victim = workers[0]!;
    const before = await readTemporalMetrics(temporal.metricsUrl!);
    const t0 = Date.now();
    const events: string[] = [];
    // Half the events, then the other half with the kill amid its commits, once the first are arriving.
    await commitInTurn(s.db, workspaces, EVENTS / 2, events);
    await waitFor(
      'the first deliveries of the run',
      async () => arrivalsOf(receiver, events).size >= 100 || undefined,
      60_000,
      50,
    );
    const rest = commitInTurn(s.db, workspaces, EVENTS / 2, events);
    // Awaited once the worker is killed; a failure before then fails the test there.
    rest.catch(() => undefined);
    await waitFor('the next commits', async () => events.length >= EVENTS / 2 + 60 || undefined, 30_000, 5);
    // The rows not yet under way: only those can be offered again after the kill.
    const { rows: waiting } = await sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY($1::text[]) AND workflow_started_at IS NULL`,
      [events],
    );
    victim.kill('SIGKILL');
    const committedAtKill = events.length;
    await victim.exited;
    workers.splice(workers.indexOf(victim), 1);
    await rest;
    // Its session ended with it, and its locks: the two left hold every slot between them.
    await slotsDividedAmong(sql, 2);
    await delivered(
      sql,
      receiver,
      `${EVENTS} deliveries, the killed worker's share taken over`,
      events,
      240_000,
    );
    const seconds = (Date.now() - t0) / 1000;
    const { calls, refused, failed } = await startCallsSince(temporal.metricsUrl!, before, EVENTS);
    const doubles = [...arrivalsOf(receiver, events).values()].filter((a) => a.length > 1).length;
    t.diagnostic(
      `killed after ${committedAtKill} of ${EVENTS} events were committed, ${waiting[0]!.n} not under way; ` +
        `all delivered in ${seconds.toFixed(1)} s; StartWorkflowExecution calls ${calls} ` +
        `(${(calls / EVENTS).toFixed(3)} per delivery, ${refused} refused, failed ${JSON.stringify(failed)}); ` +
        `events that reached the receiver twice: ${doubles}`,
    );
    // Nothing lost, nothing started twice: one workflow run per delivery of the three runs (visibility is
    // written a moment after a run starts: wait for it to count the last ones).
    const runs = await waitFor(
      'the workflow runs counted',
      async () => {
        const { count } = await s.client.workflow.count(`TaskQueue = "${s.config.temporalTaskQueue}"`);
        return count >= 3 * EVENTS ? count : undefined;
      },
      10_000,
      250,
    );
    assert.equal(runs, 3 * EVENTS, 'one workflow run per delivery');
    assertKillStarts({ calls, refused, failed }, EVENTS, waiting[0]!.n);
    // An attempt under way on the killed worker (a local activity in its workflow task) may have reached
    // the receiver before it died, and is made again when that task times out and another worker runs
    // it: at most the attempts the killed worker could run at once.
    assert.ok(doubles <= s.config.workerAttemptSlots, `${doubles} events reached the receiver twice`);
  });
});
