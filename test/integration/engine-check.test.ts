import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../infra/logger';
import { repoRoot } from '../../tooling/paths';
import { freePort } from '../../tooling/processes';
import { startTemporalDevServer, type TemporalDevServer } from '../../tooling/temporal-server';
import { freshDatabase, type TestDatabase } from '../helpers/db';

/** Runs a production entry point to its exit: code and stderr. */
function runToExit(entry: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: repoRoot(),
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'error', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stderr })),
  );
}

/**
 * A namespace made by hand, without the service's search attributes: every workflow start would fail
 * forever. The worker and the API refuse to start instead, naming what is missing and how to add it.
 */
describe('the worker and the API check their Temporal engine at start', () => {
  let bare: TemporalDevServer;
  let t: TestDatabase;
  before(async () => {
    [bare, t] = await Promise.all([
      startTemporalDevServer({ log: createLogger('test', 'warn'), headless: true, bare: true }),
      freshDatabase(),
    ]);
  });
  after(async () => {
    await bare?.stop();
    await t?.drop();
  });

  const env = async () => ({
    DATABASE_URL: t.url,
    TEMPORAL_ADDRESS: bare.address,
    PORT: String(await freePort()),
    METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
  });

  it('the worker exits non-zero naming every missing search attribute and the command that registers them', async () => {
    const { code, stderr } = await runToExit('worker/main.ts', await env());
    assert.equal(code, 1, stderr);
    assert.match(
      stderr,
      /Temporal namespace 'default' at 127\.0\.0\.1:\d+ lacks search attributes the worker sets on workflows: WebhookEventType \(Keyword\), WebhookEndpointId \(Keyword\), WorkspaceId \(Keyword\), ApprovalOperation \(Keyword\), ApprovalStatus \(Keyword\)\./,
    );
    assert.match(
      stderr,
      /TEMPORAL_ADDRESS=127\.0\.0\.1:\d+ DEFAULT_NAMESPACE=default sh deploy\/temporal\/create-namespace\.sh/,
    );
    assert.doesNotMatch(stderr, /\n\s+at /, 'a message, not a stack trace');
  });

  it('the API exits non-zero naming the attributes it sets', async () => {
    const { code, stderr } = await runToExit('api/main.ts', await env());
    assert.equal(code, 1, stderr);
    assert.match(
      stderr,
      /lacks search attributes the API sets on workflows: WorkspaceId \(Keyword\), ApprovalOperation \(Keyword\), ApprovalStatus \(Keyword\)\./,
    );
  });

  it('a namespace that does not exist is named, with the same command', async () => {
    const { code, stderr } = await runToExit('worker/main.ts', {
      ...(await env()),
      TEMPORAL_NAMESPACE: 'leads-prod',
    });
    assert.equal(code, 1, stderr);
    assert.match(
      stderr,
      /Temporal at 127\.0\.0\.1:\d+ has no namespace 'leads-prod' \(TEMPORAL_NAMESPACE\), so the worker cannot start\./,
    );
    assert.match(stderr, /DEFAULT_NAMESPACE=leads-prod sh deploy\/temporal\/create-namespace\.sh/);
  });
});
