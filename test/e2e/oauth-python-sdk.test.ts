import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import readline from 'node:readline';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import { createLogger } from '../../infra/logger';
import { repoRoot } from '../../tooling/paths';
import { ensurePythonTool, type PythonTool } from '../../tooling/python-tools';
import { consent } from '../helpers/leads';
import {
  assertConnectionEnded,
  consentInBrowser,
  grantRecords,
  KEPT_SCOPES,
  KEPT_TOOLS,
  parkedBy,
} from '../helpers/oauth-browser';
import { startSdkOauthStack, type SdkOauthStack } from '../helpers/oauth-sdk-stack';

/** The official MCP Python SDK, pinned as test/e2e/mcp-python.test.ts pins it (the same installed tool). */
const PYTHON_SDK: PythonTool = {
  name: 'mcp-python-sdk',
  packages: ['mcp==2.3.0', 'rfc3339-validator==0.1.4'],
};
const SCRIPT = path.join(repoRoot(), 'test', 'python', 'mcp_oauth_client.py');
const MEMBER = 'leo@acme.example';
const CLIENT_NAME = 'Pyrite Assistant';
/** The longest one answer of the script may take (an authorization in Chromium included). */
const STEP_MS = 90_000;

type Called = {
  isError?: boolean;
  structuredContent?: Record<string, unknown> & { outcome?: string; data?: { id: string; email: string } };
};
type Tokens = {
  access: string | null;
  refresh: string | null;
  scope: string | null;
  client_id: string | null;
  authorizations: number;
};

/**
 * The script as a line protocol (test/python/mcp_oauth_client.py says what each line is): what it
 * prints, in order, and what it is asked. A step that takes too long fails with the script's stderr.
 */
function pythonClient(child: ChildProcessWithoutNullStreams) {
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-8000)));
  // A write after it ended fails the step that waits for its answer, not the run.
  child.stdin.on('error', () => undefined);
  const lines: string[] = [];
  let ended = false;
  let heard: (() => void) | undefined;
  readline
    .createInterface({ input: child.stdout })
    .on('line', (l) => {
      lines.push(l);
      heard?.();
    })
    .on('close', () => {
      ended = true;
      heard?.();
    });
  const next = async (): Promise<string> => {
    const deadline = Date.now() + STEP_MS;
    while (lines.length === 0) {
      if (ended) throw new Error(`the Python client ended:\n${stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`the Python client said nothing for ${STEP_MS} ms:\n${stderr}`);
      // Until its next line, or the step's deadline.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        heard = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      heard = undefined;
    }
    return lines.shift()!;
  };
  /** The next line, which must start with `word`: what follows it. */
  const expectLine = async (word: string): Promise<string> => {
    const line = await next();
    assert.ok(line.startsWith(`${word} `) || line === word, `expected ${word}, got: ${line}\n${stderr}`);
    return line.slice(word.length + 1);
  };
  const send = (line: string) => child.stdin.write(`${line}\n`);
  return {
    expectLine,
    send,
    ask: (command: string, answer: string) => {
      send(command);
      return expectLine(answer);
    },
    call: async (tool: string, args: Record<string, unknown>): Promise<Called> => {
      send(`CALL ${tool} ${JSON.stringify(args)}`);
      return JSON.parse(await expectLine('CALLED')) as Called;
    },
    stderr: () => stderr,
  };
}

/**
 * The official MCP Python SDK's OAuth client as a second implementation, end to end, the same way as
 * the TypeScript client's (oauth-ts-sdk.test.ts): the script holds no key; the SDK meets the 401,
 * discovers the authorization server and names itself by a Client ID Metadata Document served over
 * TLS from the test CA; the authorization URL it prints is opened in a real Chromium, where the member
 * signs in with their passkey and keeps only some scopes; the loopback callback's query goes to the
 * script's stdin. Then, as the member through that client: the narrowed tools, a lead created, a gated
 * call parked in both their names, a refresh once the access token has expired, and the member
 * disconnecting it on the console, after which the SDK's next call is refused.
 */
describe('the official MCP Python SDK connects over OAuth, decided by a member in Chromium', () => {
  let python: string;
  let o: SdkOauthStack;
  let page: Page;
  let child: ChildProcessWithoutNullStreams | undefined;
  let py: ReturnType<typeof pythonClient>;
  let clientId: string;
  let connection: { key_id: string; grant_id: string };
  let approvalId: string;

  before(async () => {
    // Blocks while pip installs (once), before anything else is started.
    python = ensurePythonTool(PYTHON_SDK, createLogger('python-sdk', 'info'));
    o = await startSdkOauthStack(MEMBER);
    page = o.b.page;
  });
  after(async () => {
    child?.kill();
    await o?.close();
  });

  it('is authorized through Chromium on its first request, named by its metadata document, and offered the tools the member kept', async () => {
    clientId = o.documents.publish(`/clients/${randomUUID()}.json`, {
      client_name: CLIENT_NAME,
      redirect_uris: [o.callback.url],
    });
    child = spawn(
      python,
      [
        SCRIPT,
        o.stack.mcp,
        '--redirect-uri',
        o.callback.url,
        '--client-metadata-url',
        clientId,
        '--client-name',
        CLIENT_NAME,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    py = pythonClient(child);
    await py.expectLine('READY');

    // Its first request meets the 401: discovery, then the authorization the member decides.
    py.send('TOOLS');
    const authorization = new URL(await py.expectLine('AUTHORIZE'));
    const q = authorization.searchParams;
    assert.equal(`${authorization.origin}${authorization.pathname}`, `${o.stack.url}/oauth/auth`);
    assert.deepEqual(
      [q.get('client_id'), q.get('redirect_uri'), q.get('code_challenge_method'), q.get('resource')],
      [clientId, o.callback.url, 'S256', o.stack.mcp],
    );
    const shown = await consentInBrowser(o.b, authorization, KEPT_SCOPES, 'oauth-consent-python');
    assert.ok(shown.includes(CLIENT_NAME), shown);
    assert.match(shown, /from\s+localhost/);
    const params = await o.callback.next();
    assert.equal(params.get('state'), q.get('state'));
    assert.equal(params.get('iss'), o.stack.url);
    py.send(params.toString());

    // Then the tools the consent allows, exactly.
    const tools = JSON.parse(await py.expectLine('TOOLS')) as string[];
    assert.deepEqual([...tools].sort(), KEPT_TOOLS);
    for (const unticked of ['workspace.get', 'connection.list', 'campaign.create', 'prospect.list'])
      assert.ok(!tools.includes(unticked), `${unticked} needs a scope the member unticked`);
    const held = JSON.parse(await py.ask('TOKENS', 'TOKENS')) as Tokens;
    assert.equal(held.client_id, clientId, 'named by its metadata document, not registered');
    assert.deepEqual(held.scope?.split(' ').sort(), [...KEPT_SCOPES].sort());
    assert.ok(held.refresh, 'a refresh token');
    assert.equal(held.authorizations, 1);
    const [row] = await o.s.db.query<
      { key_id: string; grant_id: string; client_name: string; client_kind: string; owner_user_id: string }[]
    >(
      `SELECT c.key_id, c.grant_id, c.client_name, c.client_kind, k.owner_user_id
         FROM assistant_connections c JOIN api_keys k ON k.id = c.key_id WHERE c.client_id = $1`,
      [clientId],
    );
    assert.deepEqual(
      [row?.client_name, row?.client_kind, row?.owner_user_id],
      [CLIENT_NAME, 'document', o.memberId],
    );
    connection = row!;
  });

  it('creates a lead as the member, the audit naming the member and the client', async () => {
    const email = `pyrite-${randomUUID().slice(0, 8)}@example.com`;
    const created = await py.call('lead.create', {
      first_name: 'Pia',
      email,
      source: 'oauth-python-sdk',
      consent,
      idempotency_key: randomUUID(),
    });
    assert.equal(created.isError, false, JSON.stringify(created));
    assert.equal(created.structuredContent?.outcome, 'CREATED');
    const [lead] = await o.s.db.query<{ email: string }[]>(`SELECT email FROM leads WHERE id = $1`, [
      created.structuredContent.data!.id,
    ]);
    assert.equal(lead?.email, email);
    const [audit] = await o.s.db.query<{ client_id: string; actor_user_id: string; key_id: string }[]>(
      `SELECT client_id, actor_user_id, key_id FROM audit_log
        WHERE door = 'mcp' AND action = 'lead.create' AND outcome = 'allowed' AND client_id = $1`,
      [clientId],
    );
    assert.deepEqual(audit, { client_id: clientId, actor_user_id: o.memberId, key_id: connection.key_id });
  });

  it('parks a gated call as asked by the member through this client', async () => {
    const answer = await py.call('connection.disconnect', { connectionId: o.disconnectable });
    const parked = answer.structuredContent as { status: string; approval_id: string };
    assert.equal(parked.status, 'pending_approval', JSON.stringify(answer));
    approvalId = parked.approval_id;
    const [approval] = await o.s.db.query<
      { status: string; requested_by_user: string; requested_by_key: string }[]
    >(`SELECT status, requested_by_user, requested_by_key FROM approvals WHERE id = $1`, [approvalId]);
    assert.deepEqual(approval, {
      status: 'PENDING',
      requested_by_user: o.memberId,
      requested_by_key: connection.key_id,
    });
    assert.deepEqual(await parkedBy(o.s.db, connection.key_id), {
      client_id: clientId,
      actor_user_id: o.memberId,
    });
  });

  it('refreshes once its access token has expired, with a rotated refresh token', async () => {
    const before = await grantRecords(o.s.db, connection.grant_id);
    const refreshBefore = before.filter((r) => r.model === 'RefreshToken' && !r.consumed_at);
    assert.equal(refreshBefore.length, 1, JSON.stringify(before));
    const held = JSON.parse(await py.ask('TOKENS', 'TOKENS')) as Tokens;
    await py.ask('EXPIRE', 'EXPIRED');
    const found = await py.call('lead.search', {});
    assert.equal(found.isError, false, JSON.stringify(found));

    const now = JSON.parse(await py.ask('TOKENS', 'TOKENS')) as Tokens;
    assert.equal(now.authorizations, held.authorizations, 'no new authorization: a refresh');
    assert.notEqual(now.access, held.access, 'a new access token');
    assert.notEqual(now.refresh, held.refresh, 'a rotated refresh token');
    const after = await grantRecords(o.s.db, connection.grant_id);
    const old = after.find((r) => r.model === 'RefreshToken' && r.id === refreshBefore[0]!.id);
    assert.ok(old?.consumed_at, 'the refresh token used is consumed');
    assert.equal(after.filter((r) => r.model === 'RefreshToken' && !r.consumed_at).length, 1);
  });

  it('is disconnected by the member on the console; its next call is refused', async () => {
    await page.goto(`${o.stack.url}/app/w/${o.s.workspace.id}/keys`);
    const button = await page.$(`::-p-aria(Disconnect ${CLIENT_NAME}[role="button"])`);
    assert.ok(button, `a button named "Disconnect ${CLIENT_NAME}"`);
    page.once('dialog', (d) => void d.accept());
    await Promise.all([page.waitForNavigation(), button.click()]);

    // Its tokens are gone with the grant: the SDK meets a 401 and asks for an authorization again,
    // which nobody gives.
    const [{ mark }] = await o.s.db.query<[{ mark: number }]>(
      `SELECT coalesce(max(id), 0)::int AS mark FROM audit_log`,
    );
    py.send(`CALL lead.search {}`);
    const again = new URL(await py.expectLine('AUTHORIZE'));
    py.send(
      new URLSearchParams({
        error: 'access_denied',
        state: again.searchParams.get('state') ?? '',
      }).toString(),
    );
    // The SDK ends its session on the refusal, as its user would see it, and exits.
    assert.match(await py.expectLine('ENDED'), /the authorization was refused: access_denied/);
    const code = child!.exitCode ?? ((await once(child!, 'exit')) as [number | null])[0];
    assert.equal(code, 0, `the Python client failed:\n${py.stderr()}`);

    await assertConnectionEnded(o.s.db, connection, approvalId);
    const [{ refused }] = await o.s.db.query<[{ refused: number }]>(
      `SELECT count(*)::int AS refused FROM audit_log WHERE door = 'mcp' AND status = 401 AND id > $1`,
      [mark],
    );
    assert.equal(refused, 1, 'the call after the disconnect was answered 401, and audited');

    assert.deepEqual(o.b.violations, [], 'no page needed anything its policy forbids');
  });
});
