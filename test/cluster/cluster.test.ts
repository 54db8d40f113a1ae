import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DevStack } from '../../tooling/dev-stack';
import { repoRoot } from '../../tooling/paths';
import { freePort, isAlive, waitFor } from '../../tooling/processes';
import { runAdmin } from '../helpers/admin';
import { intakeBody } from '../helpers/leads';
import { mcpClient, structured } from '../helpers/mcp';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { commitEvent } from '../../bench/lib/outbox-load';
import { readTemporalMetrics, temporalCosts } from '../../bench/lib/temporal-metrics';
import { openDatabase } from '../../domain/data-source';

type Run = { child: ChildProcessWithoutNullStreams; output: () => string; exit: Promise<number | null> };

/**
 * `npm run cluster` as an operator runs it: the real Temporal server on PostgreSQL, two APIs and two
 * workers from the production build. Runs under `TEST_ENGINE=cluster` (the CI's cluster leg).
 */
describe('npm run cluster, the production engine on one machine', () => {
  const dataDir = path.join(repoRoot(), '.data', `e2e-cluster-${process.pid}`);
  let run: Run;
  let key: string;
  let workspaceId: string;
  let apis: string[];
  let stack: DevStack;
  let receiver: Receiver;
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
    for (const name of ['NODE_ENV', 'DATABASE_URL', 'TEMPORAL_ADDRESS', 'WORKFLOW_BUNDLE'])
      delete childEnv[name];
    const child = spawn('npm', ['run', '-s', 'cluster'], { cwd: repoRoot(), env: childEnv, detached: true });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    run = { child, output: () => out, exit };
    await Promise.race([
      waitFor(
        'npm run cluster to be ready',
        async () => out.includes('"msg":"ready"') || undefined,
        600_000,
        250,
      ),
      exit.then((code) => {
        throw new Error(`npm run cluster exited (${code}):\n${out}`);
      }),
    ]);
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

  it("divides the outbox among the workers' relays: each delivery started once; a killed worker's share is taken over", async (t) => {
    const metricsUrl = /Temporal metrics:\s+(\S+)/.exec(run.output())?.[1];
    assert.ok(metricsUrl, run.output());
    const createdIds = () =>
      new Set(receiver.ofType('lead.created').map((r) => (JSON.parse(r.body) as { id: string }).id));
    const already = createdIds().size;
    // Events committed as operations commit them (the outbox fan-out in their transaction), straight
    // into the cluster's database: 1,000 through REST would wait on the key's rate limit.
    const db = await openDatabase(stack.databaseUrl, { poolSize: 10 });
    try {
      const commit = async (n: number) => {
        for (let i = 0; i < n; i += 20)
          await Promise.all(Array.from({ length: Math.min(20, n - i) }, () => commitEvent(db, workspaceId)));
      };
      // Both workers live: 600 deliveries, started once each (the server's count of start requests).
      const before = await readTemporalMetrics(metricsUrl);
      await commit(600);
      await waitFor(
        '600 deliveries',
        async () => createdIds().size >= already + 600 || undefined,
        300_000,
        250,
      );
      const after = await readTemporalMetrics(metricsUrl);
      const starts = temporalCosts(before, after, 600).start_requests;
      t.diagnostic(`StartWorkflowExecution calls per delivery, two workers: ${starts}`);
      // At most 1.02: no relay starts what another did. (The window closes on arrivals, which an
      // earlier test's events can join, so a figure just under 1 says nothing more.)
      assert.ok(starts >= 0.95 && starts <= 1.02, `StartWorkflowExecution calls per delivery: ${starts}`);
      // One worker killed while 400 more are committed: nothing lost, every delivery made.
      const victim = stack.children.workers![1]!;
      const rest400 = commit(400);
      await waitFor(
        'the first of the next deliveries',
        async () => createdIds().size > already + 600 || undefined,
        60_000,
        100,
      );
      process.kill(victim, 'SIGKILL');
      await rest400;
      await waitFor(
        "1,000 deliveries, the killed worker's share taken over",
        async () => createdIds().size >= already + 1_000 || undefined,
        300_000,
        250,
      );
    } finally {
      // Its sessions would hold the cluster's PostgreSQL open at Ctrl+C.
      await db.destroy();
    }
  });

  it('stops everything on Ctrl+C, and refuses another history shard count on the data it made', async () => {
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
