import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../infra/free-port';
import { createLogger } from '../../infra/logger';
import {
  ensureConformance,
  type ConformanceCheck,
  type ConformanceTools,
} from '../../tooling/mcp-conformance';
import { waitFor } from '../../tooling/processes';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { workspaceWithKey } from '../helpers/fixtures';
import { authorize, consoleBrowser, oauthStack, type OauthStack } from '../helpers/oauth';
import { documentHost, registered, type DocumentHost, type Member } from '../helpers/oauth-hostile';

/** Every checks.json under `dir` (the CLI writes one per scenario, in a folder named after it). */
function checksUnder(dir: string): ConformanceCheck[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => path.basename(f) === 'checks.json')
    .flatMap((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as ConformanceCheck[]);
}

/**
 * The official MCP conformance suite's authorization-server scenarios against the authorization
 * server: `authorization-server-metadata-endpoint` (the discovery documents, the issuer exactly
 * PUBLIC_URL, PKCE S256, Client ID Metadata Document support) and `authorization-code-grant` (a whole
 * authorization: the CLI prints its authorization URL and waits on its loopback callback; a signed-in
 * member drives that URL through the console's consent page, as a browser would, until it reaches the
 * callback; the CLI then exchanges the code and checks the token response). Run for a client
 * registered over RFC 7591 and for one named by a Client ID Metadata Document.
 */
describe('the official MCP conformance suite, against the authorization server', () => {
  let tools: ConformanceTools;
  let t: TestDatabase;
  let stack: OauthStack;
  let docs: DocumentHost;
  let member: Member;

  before(async () => {
    tools = ensureConformance(createLogger('conformance', 'warn'));
    t = await freshDatabase();
    docs = await documentHost();
    const a = await workspaceWithKey(t.db, { role: 'admin' });
    stack = await oauthStack(t.db, { documents: { ca: docs.ca } });
    member = await consoleBrowser(t.db, a.email);
  });
  after(async () => {
    await stack?.close();
    await docs?.close();
    await t?.drop();
  });

  /** Runs `conformance authorization` for the client, answering its authorization URL as the member. */
  async function runAuthorization(clientId: string, port: number, signal: AbortSignal) {
    const out = mkdtempSync(path.join(tmpdir(), 'oauth-conformance-'));
    try {
      const args = ['authorization', '--url', stack.url, '--client-id', clientId, '--port', String(port)];
      args.push('--resource', stack.mcp, '-o', out);
      const child = spawn(tools.node, [tools.cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], signal });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<number | null>((resolve) => {
        child.once('exit', resolve);
        child.once('error', () => resolve(null));
      });
      try {
        const authorizationUrl = await waitFor(
          'the authorization URL the CLI prints',
          () =>
            Promise.resolve(
              output.split('\n').find((line) => line.startsWith(`${stack.url}/oauth/auth?`)) ??
                (child.exitCode !== null ? 'exited' : undefined),
            ),
          30_000,
          20,
        );
        assert.notEqual(authorizationUrl, 'exited', output);
        const params = Object.fromEntries(new URL(authorizationUrl.trim()).searchParams);
        const done = await authorize(stack, member, params, { scopes: ['leads:read'] });
        assert.ok(done.callback, `the authorization did not reach the callback:\n${output}`);
        assert.equal(done.callback.origin, `http://127.0.0.1:${port}`);
        // What the browser would do last: load the callback, where the CLI takes the code.
        assert.equal((await fetch(done.callback)).status, 200);
      } catch (err) {
        child.kill('SIGKILL');
        throw err;
      }
      const exitCode = await exited;
      return { exitCode, output: output.trim(), checks: checksUnder(out) };
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }

  const assertPassed = (run: Awaited<ReturnType<typeof runAuthorization>>) => {
    const tail = run.output.slice(-3000);
    assert.deepEqual(
      run.checks.map((c) => c.id).sort(),
      ['authorization-code-grant', 'authorization-server-metadata', 'authorization-server-metadata-cimd'],
      tail,
    );
    const notPassed = run.checks.filter((c) => c.status !== 'SUCCESS');
    assert.deepEqual(
      notPassed.map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ''}`),
      [],
      tail,
    );
    assert.equal(run.exitCode, 0, tail);
  };

  it('passes with a client registered over RFC 7591', { timeout: 90_000 }, async (ctx) => {
    const port = await freePort();
    const clientId = await registered(stack, [`http://127.0.0.1:${port}/callback`]);
    assertPassed(await runAuthorization(clientId, port, ctx.signal));
  });

  it('passes with a client named by its Client ID Metadata Document', { timeout: 90_000 }, async (ctx) => {
    const port = await freePort();
    const clientId = docs.url('/conformance-client.json');
    docs.serve('/conformance-client.json', {
      client_id: clientId,
      client_name: 'MCP conformance suite',
      redirect_uris: [`http://127.0.0.1:${port}/callback`],
    });
    assertPassed(await runAuthorization(clientId, port, ctx.signal));
    assert.ok(docs.hits('/conformance-client.json') >= 1, 'the document was fetched');
  });
});
