import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import readline from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { addMember } from '../../domain/identity/operations/member-add';
import type { Scope } from '../../domain/kernel/permissions';
import { createLogger } from '../../infra/logger';
import { repoRoot } from '../../tooling/paths';
import { ensurePythonTool, type PythonTool } from '../../tooling/python-tools';
import { startSmtpSink } from '../../tooling/smtp-sink';
import { consoleBrowser } from '../helpers/console-browser';
import { consent } from '../helpers/leads';
import { oauthStack, type OauthStack } from '../helpers/oauth';
import {
  callbackListener,
  consentInBrowser,
  documentServer,
  enrolWithPasskey,
} from '../helpers/oauth-browser';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

/** The official MCP Python SDK, pinned as test/e2e/mcp-python.test.ts pins it (the same installed tool). */
const PYTHON_SDK: PythonTool = {
  name: 'mcp-python-sdk',
  packages: ['mcp==2.3.0', 'rfc3339-validator==0.1.4'],
};
const SCRIPT = path.join(repoRoot(), 'test', 'python', 'mcp_oauth_client.py');
const MEMBER = 'leo@acme.example';
const CLIENT_NAME = 'Pyrite Assistant';
const KEPT: Scope[] = ['leads:read', 'leads:write'];
/** Every tool a connection holding exactly KEPT is offered, sorted. */
const LEAD_TOOLS = [
  'appointment.book',
  'appointment.cancel',
  'appointment.confirm',
  'appointment.decline',
  'appointment.get',
  'appointment.list',
  'appointment.mark_no_show',
  'conversation.get',
  'conversation.list',
  'conversation.reply',
  'lead.add_note',
  'lead.archive',
  'lead.create',
  'lead.get',
  'lead.search',
  'lead.set_status',
  'lead.update',
];

type Result = {
  tools: string[];
  call: { isError?: boolean; structuredContent?: { outcome: string; data: { id: string; email: string } } };
  client_id: string | null;
  scope: string | null;
  refresh_token: boolean;
  authorizations: number;
};

/**
 * The official MCP Python SDK's OAuth client as a second implementation, end to end: the script
 * (test/python/mcp_oauth_client.py) holds no key; the SDK meets the 401, discovers the authorization
 * server and names itself by a Client ID Metadata Document served over TLS from the test CA; the
 * authorization URL it prints is opened in a real Chromium, where the member signs in with their
 * passkey and keeps only the lead scopes; the loopback callback's query goes to the script's stdin;
 * the script lists the tools and creates a lead, as the member through that client.
 */
describe('the official MCP Python SDK connects over OAuth, decided by a member in Chromium', () => {
  let python: string;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let s: WebhookStack;
  let stack: OauthStack;
  let documents: Awaited<ReturnType<typeof documentServer>>;
  let callback: Awaited<ReturnType<typeof callbackListener>>;
  let b: Awaited<ReturnType<typeof consoleBrowser>>;
  let memberId: string;

  before(async () => {
    // Blocks while pip installs (once), before anything else is started.
    python = ensurePythonTool(PYTHON_SDK, createLogger('python-sdk', 'info'));
    smtp = await startSmtpSink();
    s = await startWebhookStack({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'console@acme.example' } });
    documents = await documentServer();
    callback = await callbackListener();
    stack = await oauthStack(s.db, { documents: { ca: documents.ca } });
    await s.run(addMember, { email: MEMBER, role: 'member' }, { workspaceId: s.workspace.id });
    [{ id: memberId }] = await s.db.query<[{ id: string }]>(`SELECT id FROM users WHERE email = $1`, [
      MEMBER,
    ]);
    b = await consoleBrowser();
    await enrolWithPasskey(b, stack.url, MEMBER, smtp);
  });
  after(async () => {
    await b?.close();
    await stack?.close();
    await callback?.close();
    await documents?.close();
    await s?.stop();
    await smtp?.stop();
  });

  it('is authorized through Chromium, lists the narrowed tools and creates a lead as the member', async () => {
    const clientId = documents.publish(`/clients/${randomUUID()}.json`, {
      client_name: CLIENT_NAME,
      redirect_uris: [callback.url],
    });
    const email = `pyrite-${randomUUID().slice(0, 8)}@example.com`;
    const child = spawn(
      python,
      [
        SCRIPT,
        stack.mcp,
        '--redirect-uri',
        callback.url,
        '--client-metadata-url',
        clientId,
        '--client-name',
        CLIENT_NAME,
        '--tool',
        'lead.create',
        '--args',
        JSON.stringify({
          first_name: 'Pia',
          email,
          source: 'oauth-python-sdk',
          consent,
          idempotency_key: randomUUID(),
        }),
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // No step may hang the run: a stuck script is killed, and its stderr says where it was.
    const deadline = setTimeout(() => child.kill('SIGKILL'), 120_000);

    const authorizations: URL[] = [];
    let result: Result | undefined;
    try {
      for await (const line of readline.createInterface({ input: child.stdout })) {
        if (line.startsWith('AUTHORIZE ')) {
          const authorization = new URL(line.slice('AUTHORIZE '.length));
          authorizations.push(authorization);
          const shown = await consentInBrowser(b, authorization, KEPT, 'oauth-consent-python');
          assert.ok(shown.includes(CLIENT_NAME), shown);
          assert.match(shown, /from\s+localhost/);
          const params = await callback.next();
          assert.equal(params.get('state'), authorization.searchParams.get('state'));
          assert.equal(params.get('iss'), stack.url);
          child.stdin.write(`${params.toString()}\n`);
        } else if (line.startsWith('RESULT ')) result = JSON.parse(line.slice('RESULT '.length)) as Result;
      }
      assert.equal(await exited, 0, `the Python client failed:\n${stderr.slice(-4000)}`);
    } finally {
      clearTimeout(deadline);
      child.kill();
    }

    assert.equal(authorizations.length, 1, 'one authorization');
    const q = authorizations[0]!.searchParams;
    assert.equal(`${authorizations[0]!.origin}${authorizations[0]!.pathname}`, `${stack.url}/oauth/auth`);
    assert.deepEqual(
      [q.get('client_id'), q.get('redirect_uri'), q.get('code_challenge_method'), q.get('resource')],
      [clientId, callback.url, 'S256', stack.mcp],
    );
    assert.ok(result, `a RESULT line; stderr:\n${stderr.slice(-4000)}`);
    assert.equal(result.client_id, clientId, 'named by its metadata document, not registered');
    assert.deepEqual(result.scope?.split(' ').sort(), [...KEPT].sort());
    assert.ok(result.refresh_token, 'a refresh token');
    assert.deepEqual([...result.tools].sort(), LEAD_TOOLS);
    for (const unticked of ['workspace.get', 'connection.list', 'campaign.create', 'prospect.list'])
      assert.ok(!result.tools.includes(unticked), `${unticked} needs a scope the member unticked`);
    assert.equal(result.call.isError, false, JSON.stringify(result.call));
    assert.equal(result.call.structuredContent?.outcome, 'CREATED');
    assert.equal(result.call.structuredContent.data.email, email);

    const [connection] = await s.db.query<
      { key_id: string; client_name: string; client_kind: string; owner_user_id: string }[]
    >(
      `SELECT c.key_id, c.client_name, c.client_kind, k.owner_user_id
         FROM assistant_connections c JOIN api_keys k ON k.id = c.key_id WHERE c.client_id = $1`,
      [clientId],
    );
    assert.deepEqual(
      [connection?.client_name, connection?.client_kind, connection?.owner_user_id],
      [CLIENT_NAME, 'document', memberId],
    );
    const [audit] = await s.db.query<{ client_id: string; actor_user_id: string; key_id: string }[]>(
      `SELECT client_id, actor_user_id, key_id FROM audit_log
        WHERE door = 'mcp' AND action = 'lead.create' AND outcome = 'allowed' AND client_id = $1`,
      [clientId],
    );
    assert.deepEqual(audit, { client_id: clientId, actor_user_id: memberId, key_id: connection!.key_id });
    const [lead] = await s.db.query<{ email: string }[]>(`SELECT email FROM leads WHERE id = $1`, [
      result.call.structuredContent.data.id,
    ]);
    assert.equal(lead?.email, email);
    assert.deepEqual(b.violations, [], 'no page needed anything its policy forbids');
  });
});
