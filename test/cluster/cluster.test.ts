import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import type { DevStack } from '../../tooling/dev-stack';
import { bundleWorkflowsOutOfProcess } from '../../worker/worker';
import { repoRoot } from '../../tooling/paths';
import { freePort, isAlive, waitFor } from '../../tooling/processes';
import { runAdmin, runAdminAsync } from '../helpers/admin';
import { intakeBody } from '../helpers/leads';
import { mcpClient, structured } from '../helpers/mcp';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { readTemporalMetrics } from '../../bench/lib/temporal-metrics';
import { openDatabase } from '../../domain/data-source';
import { WORKFLOW_TASK_SLOTS } from '../../infra/config';
import type { AddedWorker } from '../../tooling/cluster-roll';
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
import { addClusterWorkerByCli, outageReceiver, postOnce, rollCluster, runRecord } from '../helpers/rollout';

/** Deliveries parked on the first version when the second is deployed. */
const LADDERS = 200;
/** How long the receiver, down, asks them to wait: the rollout makes the next version current sooner. */
const RETRY_AFTER_S = 120;
/**
 * Events per run of the relays' test, and the workspaces they take turns in: the slots are by workspace,
 * and with 32 each of three relays holds some of them but about once in 10,000 runs.
 */
const RELAY_EVENTS = 1_000;
const RELAY_WORKSPACES = 32;

type Run = { child: ChildProcessWithoutNullStreams; output: () => string; exit: Promise<number | null> };

/**
 * `npm run cluster` as an operator runs it: the real Temporal server on PostgreSQL, two APIs and two
 * workers from the production build. Runs under `TEST_ENGINE=cluster` (the CI's cluster leg). Its workers
 * start as version 1: the workflow code before the delivery workflow's `delivery-progress-memo` patch
 * (test/fixtures/workflows-before-progress-memo); `npm run cluster -- roll` deploys the checkout's over it.
 */
describe('npm run cluster, the production engine on one machine', () => {
  const dataDir = path.join(repoRoot(), '.data', `e2e-cluster-${process.pid}`);
  let run: Run;
  let key: string;
  let workspaceId: string;
  let apis: string[];
  let stack: DevStack;
  let receiver: Receiver;
  let rollout: Receiver | undefined;
  const env = () => ({ DEV_DATA_DIR: dataDir, DATABASE_URL: undefined, PUBLIC_URL: undefined });

  before(async () => {
    mkdirSync(dataDir, { recursive: true, mode: 0o755 });
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      DEV_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      TEMPORAL_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(await freePort()),
    };
    for (const name of ['NODE_ENV', 'DATABASE_URL', 'TEMPORAL_ADDRESS', 'WORKER_BUILD_ID'])
      delete childEnv[name];
    childEnv.WORKFLOW_BUNDLE = await bundleWorkflowsOutOfProcess(
      path.join(dataDir, 'workflows-v1.js'),
      require.resolve('../fixtures/workflows-before-progress-memo'),
    );
    const child = spawn('npm', ['run', '-s', 'cluster'], { cwd: repoRoot(), env: childEnv, detached: true });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    run = { child, output: () => out, exit };
    // Ends at readiness or at the exit, so a cluster that fails to start fails the test at once.
    await waitFor(
      'npm run cluster to be ready',
      async () => out.includes('"msg":"ready"') || child.exitCode !== null || undefined,
      600_000,
      250,
    );
    if (!out.includes('"msg":"ready"'))
      throw new Error(`npm run cluster exited (${child.exitCode}):\n${out}`);
    key = /API key:\s+(lk_live_[0-9A-Za-z]+)/.exec(out)?.[1] ?? '';
    workspaceId = /Demo workspace:.*\(([0-9a-f-]{36})\)/.exec(out)?.[1] ?? '';
    apis = [...out.matchAll(/API \d base URL:\s+(\S+)\/api\/v1/g)].map((m) => m[1]!);
    assert.ok(key && workspaceId && apis.length === 2, out);
    stack = JSON.parse(readFileSync(path.join(dataDir, 'dev-stack.json'), 'utf8')) as DevStack;
    receiver = await startReceiver();
  });

  const stop = async () => {
    if (run && run.child.exitCode === null && run.child.signalCode === null) {
      process.kill(-run.child.pid!, 'SIGINT');
      await run.exit;
    }
  };
  after(async () => {
    await receiver?.close();
    await rollout?.close();
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const rest = (api: string, route: string, init: RequestInit = {}) =>
    fetch(`${api}/api/v1${route}`, {
      ...init,
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        ...(init.method === 'POST' && { 'Idempotency-Key': randomUUID() }),
        ...init.headers,
      },
    });

  it('prints the banner of the real parts, and records them for the admin CLI', async () => {
    const out = run.output();
    assert.match(out, /Temporal Web UI:\s+http:\/\/127\.0\.0\.1:\d+/);
    assert.match(out, /Temporal server:\s+127\.0\.0\.1:\d+\s+\(4 history shards/);
    assert.match(out, /Worker 2 metrics:\s+http:\/\/127\.0\.0\.1:\d+\/metrics/);
    assert.equal(stack.engine, 'cluster');
    assert.deepEqual(stack.apiUrls, apis);
    assert.equal(stack.children.apis?.length, 2);
    assert.equal(stack.children.workers?.length, 2);
    for (const pid of [...stack.children.apis, ...stack.children.workers, stack.children.temporal!])
      assert.ok(isAlive(pid), `pid ${pid} runs`);
    const ui = await fetch(`${stack.temporalUiUrl}/api/v1/namespaces/default`);
    assert.equal(ui.status, 200, 'the Web UI answers for the namespace from the real server');
    // The server is the one built from the module at the pinned version, not the dev server.
    const info = await fetch(`${stack.temporalUiUrl}/api/v1/cluster-info`);
    assert.match(await info.text(), /"serverVersion":\s*"1\.32\.2"/);
  });

  it('reads on the second API a lead created on the first', async () => {
    const body = intakeBody();
    const created = await rest(apis[0]!, '/leads', { method: 'POST', body: JSON.stringify(body) });
    assert.equal(created.status, 201);
    const { id } = ((await created.json()) as { data: { id: string } }).data;
    const read = await rest(apis[1]!, `/leads/${id}`);
    assert.equal(read.status, 200);
    assert.ok((await read.text()).includes(body.email), 'the same lead');
  });

  it('delivers a signed webhook through the real server', async () => {
    const made = runAdmin(env(), [
      'endpoint',
      'create',
      '--workspace',
      workspaceId,
      '--url',
      receiver.url,
      '--events',
      'lead.created',
    ]);
    assert.equal(made.code, 0, made.stderr);
    receiver.setSecret((JSON.parse(made.stdout) as { secret: string }).secret);
    const body = intakeBody();
    assert.equal(
      (await rest(apis[1]!, '/leads', { method: 'POST', body: JSON.stringify(body) })).status,
      201,
    );
    await receiver.eventOf('lead.created', (d) => JSON.stringify(d).includes(body.email));
    const delivery = receiver.ofType('lead.created').at(-1)!;
    assert.ok(delivery.helperOk && delivery.independentOk, 'the signature verifies');
  });

  it('parks an assistant request on the server, runs it once approved from the admin CLI, and mails the campaign', async () => {
    const owner = `owner.${Date.now()}@demo.example`;
    const member = runAdmin(env(), [
      'member',
      'add',
      '--workspace',
      workspaceId,
      '--email',
      owner,
      '--role',
      'owner',
    ]);
    assert.equal(member.code, 0, member.stderr);
    const source = `cluster-${Date.now()}`;
    const lead = intakeBody({ source });
    assert.equal(
      (await rest(apis[0]!, '/leads', { method: 'POST', body: JSON.stringify(lead) })).status,
      201,
    );
    const mcp = await mcpClient(apis[1]!, key, { protocolVersion: '2025-11-25' });
    const created = structured<{ id: string }>(
      await mcp.call('campaign.create', {
        name: 'Cluster hello',
        channel: 'email',
        audience: { sources: [source] },
        steps: [
          {
            subject: 'Hello from the cluster {first_name}',
            body: 'Sent by the real engine.',
            delay_hours: 0,
          },
        ],
        window: { weekdays: [1, 2, 3, 4, 5, 6, 7], start_hour: 0, end_hour: 24 },
      }),
    );
    const parked = structured<{ approval_id: string }>(
      await mcp.call('campaign.send', { campaignId: created.id }),
    );
    await mcp.client.close();
    const listed = runAdmin(env(), ['approval', 'list', '--workspace', workspaceId, '--status', 'PENDING']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok((JSON.parse(listed.stdout) as { id: string }[]).some((r) => r.id === parked.approval_id));
    const approved = runAdmin(env(), ['approval', 'approve', '--id', parked.approval_id, '--as', owner]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal((JSON.parse(approved.stdout) as { status: string }).status, 'EXECUTED');
    // MailDev, as the banner names it, holds what the workers sent.
    const mailPage = /Mail sent:\s+(http:\/\/\S+)/.exec(run.output())![1]!;
    await waitFor(
      'the campaign mail at MailDev',
      async () => {
        const mails = (await (await fetch(`${mailPage}/api/email`)).json()) as {
          subject: string;
          to: { address: string }[];
        }[];
        return mails.find(
          (m) => m.subject === 'Hello from the cluster Ana' && m.to[0]?.address === lead.email,
        );
      },
      60_000,
      250,
    );
  });

  it('rolls the workers to the next version over 200 ladders parked on the first: each ends once, on the new code, none failing to replay', async (t) => {
    const t0 = Date.now();
    const at = (what: string) => t.diagnostic(`${what} after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    // A workspace of its own, so that no other endpoint hears these leads.
    const admin = (...args: string[]) => {
      const r = runAdmin(env(), args);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout) as Record<string, unknown>;
    };
    const ws = admin('workspace', 'create', '--name', 'Rollout') as { id: string };
    admin('member', 'add', '--workspace', ws.id, '--email', 'ops@rollout.example', '--role', 'owner');
    const rolloutKey = admin(
      ...['key', 'create', '--workspace', ws.id, '--owner', 'ops@rollout.example'],
      ...['--name', 'rollout', '--scopes', 'leads:write'],
    ).key as string;
    // Down, asking for two minutes: longer than the rollout takes to make the next version current.
    const down = await outageReceiver(RETRY_AFTER_S);
    rollout = down.receiver;
    const endpoint = admin(
      ...['endpoint', 'create', '--workspace', ws.id, '--url', down.receiver.url, '--events', 'lead.created'],
    ) as { id: string; secret: string };
    down.receiver.setSecret(endpoint.secret);
    const v1 = stack.workerVersion!;

    const firstAttempts = Date.now();
    for (let i = 0; i < LADDERS; i += 10)
      await Promise.all(
        Array.from({ length: 10 }, async (_, j) => {
          const res = await postOnce(
            `${apis[j % 2]!}/api/v1/leads`,
            rolloutKey,
            intakeBody({ source: 'rollout' }),
          );
          assert.equal(res.status, 201, await res.text());
        }),
      );
    const db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
    const deliveries = async () =>
      (
        await db.query<{ id: string; status: string; attempts: number }>(
          'SELECT id, status, attempts FROM webhook_deliveries WHERE endpoint_id = $1',
          [endpoint.id],
        )
      ).rows;
    try {
      // Parked mid-ladder on version 1: the first attempt answered 503, the ladder sleeps on Retry-After.
      await waitFor(
        `${LADDERS} ladders parked`,
        async () => {
          const rows = await deliveries();
          return rows.length === LADDERS && rows.every((d) => d.status === 'FAILED' && d.attempts === 1)
            ? rows
            : undefined;
        },
        90_000,
        500,
      );
      at(`${LADDERS} ladders parked on ${v1}`);

      let current = 0;
      const lines: string[] = [];
      const rolled = rollCluster(dataDir, (line) => {
        lines.push(line);
        // The new version takes the ladders' next attempts: the receiver is back for them.
        if (/ is current; /.test(line)) {
          current = Date.now();
          at('the next version current');
          down.recover();
        }
      });
      assert.equal(await rolled, 0, lines.join('\n'));
      at('the first version drained and its workers stopped');
      assert.ok(current, lines.join('\n'));
      assert.ok(
        current - firstAttempts < RETRY_AFTER_S * 1_000,
        `the next version became current ${(current - firstAttempts) / 1000} s after the first attempts, after the ladders' Retry-After (${RETRY_AFTER_S} s): they woke on the first`,
      );
      const v2 = /^rolled to (\S+)$/m.exec(lines.join('\n'))?.[1];
      assert.ok(v2 && v2 !== v1, lines.join('\n'));
      assert.ok(lines.includes(`stopped the workers of ${v1}`), lines.join('\n'));
      const after = JSON.parse(readFileSync(path.join(dataDir, 'dev-stack.json'), 'utf8')) as DevStack;
      assert.equal(after.workerVersion, v2);
      for (const pid of stack.children.workers!)
        assert.ok(!isAlive(pid), `the version 1 worker ${pid} stopped`);
      for (const pid of after.children.workers!) assert.ok(isAlive(pid), `the version 2 worker ${pid} runs`);

      const rows = await waitFor(
        `${LADDERS} deliveries to succeed`,
        async () => {
          const r = await deliveries();
          return r.every((d) => d.status === 'SUCCEEDED') ? r : undefined;
        },
        240_000,
        1_000,
      );
      at(`${LADDERS} deliveries succeeded`);
      // Each event reached the receiver twice: refused while it was down, taken once it was back.
      assert.equal(down.answers.size, LADDERS);
      for (const [event, answered] of down.answers) assert.deepEqual(answered, [503, 200], event);
      assert.ok(rows.every((d) => d.attempts === 2));

      const temporalClient = new Client({
        connection: await Connection.connect({ address: stack.temporalAddress }),
        namespace: stack.temporalNamespace,
      });
      try {
        const [, build1] = v1.split(':');
        const [, build2] = v2.split(':');
        for (const d of rows) {
          const r = await runRecord(temporalClient, `webhook-delivery:${d.id}`);
          assert.equal(r.status, 'COMPLETED');
          assert.deepEqual(r.result, { outcome: 'succeeded', attempts: 2 });
          assert.deepEqual(r.failedTasks, [], `${d.id} failed no workflow task (no nondeterminism)`);
          // Started on version 1, finished on version 2, whose patched path ran mid-ladder.
          assert.equal(r.taskVersions[0], build1, d.id);
          assert.equal(r.taskVersions.at(-1), build2, d.id);
          assert.equal(r.patches, 1, d.id);
          assert.deepEqual(r.memo, { ...r.memo, attempts: 2, last_response: 200 }, d.id);
        }
      } finally {
        await temporalClient.connection.close();
      }
    } finally {
      await db.end();
    }
  });

  it("divides the outbox among two workers' relays, then three: each delivery started once; a killed worker's share is taken over", async (t) => {
    // The workers running now: the rollout above replaced the first ones.
    stack = JSON.parse(readFileSync(path.join(dataDir, 'dev-stack.json'), 'utf8')) as DevStack;
    const metricsUrl = /Temporal metrics:\s+(\S+)/.exec(run.output())?.[1];
    assert.ok(metricsUrl, run.output());
    // Workspaces of their own, each with an endpoint at the receiver: the slots are by workspace, so
    // the relays divide the rows only when there are a good few.
    const workspaces: string[] = [];
    const admin = async (...args: string[]) => {
      const r = await runAdminAsync(env(), args);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout) as { id: string };
    };
    for (let i = 0; i < RELAY_WORKSPACES; i += 4)
      await Promise.all(
        Array.from({ length: 4 }, async (_, j) => {
          const ws = await admin('workspace', 'create', '--name', `Relays ${i + j + 1}`);
          const at = ['--url', receiver.url, '--events', 'lead.created'];
          await admin('endpoint', 'create', '--workspace', ws.id, ...at);
          workspaces.push(ws.id);
        }),
      );
    // Events committed as operations commit them (the outbox fan-out in their transaction), straight
    // into the cluster's database: 3,000 through REST would wait on the key's rate limit.
    const db = await openDatabase(stack.databaseUrl, { poolSize: 10 });
    const sql = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
    try {
      /** With `n` workers, RELAY_EVENTS events: each started once (the server's count), delivered once. */
      const divided = async (n: number, added?: AddedWorker) => {
        const shares = await sharesOf(sql, await slotsDividedAmong(sql, n), workspaces, RELAY_EVENTS);
        assert.ok(
          shares.every((x) => x > 0),
          `each relay holds some of the workspaces: ${shares.join(', ')}`,
        );
        const before = await readTemporalMetrics(metricsUrl);
        const addedBefore = added && (await relayStarts(added.metricsUrl));
        const events = await commitInTurn(db, workspaces, RELAY_EVENTS);
        const rows = await delivered(sql, receiver, `${RELAY_EVENTS} deliveries`, events, 300_000);
        const { calls, refused, failed } = await startCallsSince(metricsUrl, before, RELAY_EVENTS);
        const own = added && (await relayStarts(added.metricsUrl)) - addedBefore!;
        t.diagnostic(
          `${n} workers: StartWorkflowExecution calls ${calls} for ${RELAY_EVENTS} deliveries ` +
            `(${(calls / RELAY_EVENTS).toFixed(3)} each, ${refused} refused, failed ${JSON.stringify(failed)}); ` +
            `the relays' shares ${shares.join(', ')}${added ? `, the added worker's relay started ${own}` : ''}`,
        );
        // At least one call per delivery, each started in the window; a few more could be the
        // maintenance schedules', none a second relay's.
        assert.ok(
          calls >= RELAY_EVENTS && calls <= RELAY_EVENTS * 1.02,
          `StartWorkflowExecution calls: ${calls} for ${RELAY_EVENTS}`,
        );
        assert.equal(refused, 0, 'no start of a row another relay had started');
        if (added)
          assert.ok(shares.includes(own!), `the added worker's relay started its slots' rows: ${own}`);
        for (const [event, attempts] of arrivalsOf(receiver, events))
          assert.deepEqual(attempts, ['1'], event);
        assert.ok(rows.every((d) => d.attempts === 1));
      };

      await divided(2);
      // A third worker of the running version, started by the cluster as it starts its own.
      const added = await addClusterWorkerByCli(dataDir);
      stack = JSON.parse(readFileSync(path.join(dataDir, 'dev-stack.json'), 'utf8')) as DevStack;
      assert.equal(added.version, stack.workerVersion, 'the version the others run');
      assert.deepEqual(stack.children.workers?.at(-1), added.pid);
      assert.equal(stack.children.workers?.length, 3);
      await divided(3, added);

      // One worker killed while events are committed: nothing lost, every row started once.
      const victim = stack.children.workers[1]!;
      const before = await readTemporalMetrics(metricsUrl);
      const events: string[] = [];
      await commitInTurn(db, workspaces, RELAY_EVENTS / 2, events);
      await waitFor(
        'the first deliveries of the run',
        async () => arrivalsOf(receiver, events).size >= 100 || undefined,
        60_000,
        50,
      );
      const rest = commitInTurn(db, workspaces, RELAY_EVENTS / 2, events);
      // Awaited once the worker is killed; a failure before then fails the test there.
      rest.catch(() => undefined);
      await waitFor(
        'the next commits',
        async () => events.length >= RELAY_EVENTS / 2 + 60 || undefined,
        30_000,
        5,
      );
      // The rows not yet under way: only those can be offered again after the kill.
      const { rows: waiting } = await sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_deliveries
          WHERE event_id = ANY($1::text[]) AND workflow_started_at IS NULL`,
        [events],
      );
      process.kill(victim, 'SIGKILL');
      await waitFor('the killed worker gone', async () => !isAlive(victim) || undefined, 10_000, 50);
      await rest;
      await slotsDividedAmong(sql, 2);
      await delivered(
        sql,
        receiver,
        `${RELAY_EVENTS} deliveries, the killed worker's share taken over`,
        events,
        300_000,
      );
      const { calls, refused, failed } = await startCallsSince(metricsUrl, before, RELAY_EVENTS);
      const doubles = [...arrivalsOf(receiver, events).values()].filter((a) => a.length > 1).length;
      t.diagnostic(
        `one of three killed: StartWorkflowExecution calls ${calls} for ${RELAY_EVENTS} deliveries ` +
          `(${refused} refused, failed ${JSON.stringify(failed)}; ${waiting[0]!.n} rows not under way at ` +
          `the kill); events that reached the receiver twice: ${doubles}`,
      );
      assertKillStarts({ calls, refused, failed }, RELAY_EVENTS, waiting[0]!.n);
      // A killed worker's attempt under way may have reached the receiver, and is made again by another:
      // at most the attempts one worker runs at once.
      assert.ok(doubles <= WORKFLOW_TASK_SLOTS, `${doubles} events reached the receiver twice`);
      // One workflow run per delivery of the three runs, as the server's visibility counts them.
      const temporalClient = new Client({
        connection: await Connection.connect({ address: stack.temporalAddress }),
        namespace: stack.temporalNamespace,
      });
      try {
        const query = `WorkflowType = "deliverWebhookWorkflow" AND WorkspaceId IN (${workspaces.map((w) => `"${w}"`).join(', ')})`;
        const runs = await waitFor(
          'visibility to count the runs',
          async () => {
            const { count } = await temporalClient.workflow.count(query);
            return count >= 3 * RELAY_EVENTS ? count : undefined;
          },
          60_000,
          1_000,
        );
        assert.equal(runs, 3 * RELAY_EVENTS, 'one run per delivery');
      } finally {
        await temporalClient.connection.close();
      }
    } finally {
      // Their sessions would hold the cluster's PostgreSQL open at Ctrl+C.
      await sql.end();
      await db.destroy();
    }
  });

  it('stops everything on Ctrl+C, and refuses another history shard count on the data it made', async () => {
    // The workers it runs now (a rollout replaced the first ones).
    stack = JSON.parse(readFileSync(path.join(dataDir, 'dev-stack.json'), 'utf8')) as DevStack;
    await stop();
    assert.match(run.output(), /"msg":"stopped cleanly"/);
    for (const pid of [...stack.children.apis!, ...stack.children.workers!, stack.children.temporal!])
      assert.ok(!isAlive(pid), `pid ${pid} is gone`);
    const again = spawnSync('npm', ['run', '-s', 'cluster'], {
      cwd: repoRoot(),
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: undefined, DEV_DATA_DIR: dataDir, TEMPORAL_HISTORY_SHARDS: '8' },
      timeout: 120_000,
    });
    assert.equal(again.status, 1, again.stdout + again.stderr);
    assert.match(
      again.stderr,
      /This Temporal database was created with 4 history shards, and TEMPORAL_HISTORY_SHARDS asks for 8\. A cluster's shard count is fixed when its database is created/,
    );
    assert.doesNotMatch(again.stdout, /Lead service is running/);
  });
});
