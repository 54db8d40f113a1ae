import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { FORCE_EXIT_MS } from '../../infra/shutdown';
import type { DevStack } from '../../tooling/dev-stack';
import { repoRoot } from '../../tooling/paths';
import { freePort, isAlive, waitFor } from '../../tooling/processes';

type Exit = { code: number | null; signal: NodeJS.Signals | null };
type Run = { child: ChildProcessWithoutNullStreams; output: () => string; exit: Promise<Exit> };

/** Starts `npm run dev` as a user would (its script, spawned), with its own data folder and ports. */
async function startDev(dataDir: string): Promise<Run> {
  const root = repoRoot();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DEV_DATA_DIR: dataDir,
    PORT: String(await freePort()),
    TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
  };
  delete env.NODE_ENV;
  const child = spawn('npm', ['run', '-s', 'dev'], { cwd: root, env, detached: true });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exit = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await waitFor(
    'npm run dev to be ready',
    async () => out.includes('"msg":"ready"') || undefined,
    120_000,
    200,
  );
  return { child, output: () => out, exit };
}

/** Ctrl+C in a terminal signals the whole process group; the stack must stop cleanly. */
async function interrupt(run: Run) {
  process.kill(-run.child.pid!, 'SIGINT');
  const { code, signal } = await run.exit;
  // npm itself dies of the SIGINT (as in a terminal); what matters is that the dev process stopped cleanly.
  assert.ok(code === 0 || signal === 'SIGINT', `npm exit ${code ?? signal}`);
  // As long as the process itself allows a clean stop (the worker, Temporal and PostgreSQL each stop in
  // turn; on a loaded 2-core machine that once took more than 10 s); a stuck one logs otherwise and exits 1.
  await waitFor(
    'the clean-stop log line',
    async () => run.output().includes('"msg":"stopped cleanly"'),
    FORCE_EXIT_MS,
  ).catch((err: unknown) => {
    // What the stop did last says which part held it.
    throw new Error(`${String(err)}\n${run.output().split('\n').slice(-30).join('\n')}`);
  });
}

describe('npm run dev, as a newcomer runs it', () => {
  const dataDir = path.join(repoRoot(), '.data', `e2e-dev-${process.pid}`);
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('brings the stack up, prints a working key, reuses its data on restart and leaves nothing behind', async () => {
    const first = await startDev(dataDir);
    const text = first.output();
    const key = /API key:\s+(lk_live_[0-9A-Za-z]+)/.exec(text)?.[1];
    const base = /API base URL:\s+(\S+)/.exec(text)?.[1];
    const workspaceId = /Demo workspace:.*\(([0-9a-f-]{36})\)/.exec(text)?.[1];
    assert.ok(key && base && workspaceId, text);
    assert.match(text, /Temporal Web UI:\s+http:\/\/127\.0\.0\.1:\d+/);
    // The console, on a host name (passkeys refuse an IP address), answers its sign-in page.
    assert.match(text, /Console:\s+http:\/\/localhost:\d+\/app\s/);
    const signIn = await fetch(base.replace(/\/api\/v1$/, '/app/sign-in'));
    assert.equal(signIn.status, 200, 'the console answers');
    assert.match(await signIn.text(), /Sign in/);
    // The operator's break-glass is on in dev, and the banner says so (issue 55, item 4).
    assert.match(
      text,
      /Operator decides:\s+on \(APPROVALS_OPERATOR_DECIDE=true\): approval approve\|reject --as decides, recorded as operator-asserted/,
    );
    const stack = JSON.parse(readFileSync(path.join(dataDir, 'dev-stack.json'), 'utf8')) as DevStack;
    // The API and the worker (one process in `npm run dev`) run on the project's Node 24, whatever the
    // machine's own Node is (20 here).
    const exe = readlinkSync(`/proc/${stack.pid}/exe`);
    assert.equal(
      spawnSync(exe, ['--version'], { encoding: 'utf8' }).stdout.trim(),
      `v${process.versions.node}`,
    );
    assert.ok(Number(process.versions.node.split('.')[0]) >= 24);

    const me = await fetch(`${base}/me`, { headers: { Authorization: `Bearer ${key}` } });
    assert.equal(me.status, 200);
    const body = (await me.json()) as { workspace: { id: string }; acting_as: { role: string } };
    assert.equal(body.workspace.id, workspaceId);
    assert.equal(body.acting_as.role, 'admin');

    const ui = await fetch(stack.temporalUiUrl!);
    assert.equal(ui.status, 200, 'the Temporal Web UI answers');

    // A second run in the same folder refuses at once, naming the running one, and changes nothing.
    const secondEnv: NodeJS.ProcessEnv = {
      ...process.env,
      DEV_DATA_DIR: dataDir,
      PORT: String(await freePort()),
    };
    delete secondEnv.NODE_ENV;
    const refused = spawnSync('npm', ['run', '-s', 'dev'], {
      cwd: repoRoot(),
      env: secondEnv,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(refused.status, 1, refused.stdout + refused.stderr);
    assert.match(refused.stderr, new RegExp(`already running with this data folder .*: pid ${stack.pid}\\.`));
    assert.ok(refused.stderr.includes(`${base}`), 'it names the running API');
    assert.match(refused.stderr, /Nothing was started or changed\./);
    assert.equal((await fetch(`${base}/me`, { headers: { Authorization: `Bearer ${key}` } })).status, 200);
    assert.ok(existsSync(path.join(dataDir, 'dev-stack.json')), "the running stack's file is still there");
    assert.equal(
      stack.publicUrl,
      new URL(base).origin.replace('127.0.0.1', 'localhost'),
      'links the admin CLI builds',
    );

    // Both metrics pages, printed and answering: the API's and the worker's (with the SDK's own series).
    const apiMetrics = /API metrics:\s+(http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(text)?.[1];
    const workerMetrics = /Worker metrics:\s+(http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(text)?.[1];
    assert.ok(apiMetrics && workerMetrics, text);
    assert.match(await (await fetch(apiMetrics)).text(), /^leads_audit_backlog /m);
    assert.match(await (await fetch(workerMetrics)).text(), /^temporal_\w+/m);

    // Mail really leaves, to MailDev, whose page shows it.
    const mailUrl = /Mail sent:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
    assert.ok(mailUrl, text);
    const page = await fetch(mailUrl, { headers: { Accept: 'text/html' } });
    assert.equal(page.status, 200, 'the mail page answers a browser');
    const lead = await fetch(`${base}/leads`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': 'dev-1',
      },
      body: JSON.stringify({
        email: 'visitor@example.com',
        source: 'dev',
        consent: { given: true, at: '2026-11-20T09:00:00Z' },
      }),
    });
    const leadId = ((await lead.json()) as { data: { id: string } }).data.id;
    const reply = await fetch(base.replace(/\/api\/v1$/, '/api/mcp'), {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'conversation.reply',
          arguments: { leadId, channel: 'email', body: 'Hello from dev', subject: 'Dev mail' },
        },
      }),
    });
    assert.equal(reply.status, 200);
    await waitFor(
      'the reply in MailDev',
      async () => {
        const mails = (await (await fetch(`${mailUrl}/api/email`)).json()) as { subject: string }[];
        return mails.some((m) => m.subject === 'Dev mail') || undefined;
      },
      30_000,
      200,
    );

    await interrupt(first);
    for (const pid of [stack.pid, stack.children.postgres, stack.children.temporal]) {
      await waitFor(`process ${pid} to exit`, async () => !isAlive(pid), 10_000);
    }

    const second = await startDev(dataDir);
    const again = second.output();
    assert.ok(again.includes(`(${workspaceId})`), 'same demo workspace');
    assert.ok(!/lk_live_/.test(again), 'no key is shown a second time');
    const stillWorks = await fetch(`${/API base URL:\s+(\S+)/.exec(again)![1]}/me`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    assert.equal(stillWorks.status, 200, 'the first key still works after a restart');
    await interrupt(second);
  });
});
