import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { Page } from 'puppeteer-core';
import { SCOPES } from '../../domain/kernel/permissions';
import { consent } from '../helpers/leads';
import {
  assertConnectionEnded,
  consentInBrowser,
  grantRecords,
  KEPT_SCOPES as KEPT,
  KEPT_TOOLS,
  MemoryOAuthProvider,
  parkedBy,
  signOut,
} from '../helpers/oauth-browser';
import { startSdkOauthStack, type SdkOauthStack } from '../helpers/oauth-sdk-stack';

const MEMBER = 'mia@acme.example';
type ConnectionRow = {
  key_id: string;
  grant_id: string;
  client_id: string;
  client_name: string;
  client_host: string;
  client_kind: string;
};

/**
 * The official MCP TypeScript client's OAuth support (@modelcontextprotocol/client), end to end: a
 * member enrolled with a passkey in a real Chromium (virtual authenticator), the API with its
 * authorization server on PostgreSQL, the worker and Temporal behind the approval gate, a Client ID
 * Metadata Document served over TLS from the test CA, and the client's loopback redirect URI. Each
 * client kind (a metadata document; Dynamic Client Registration) goes the whole way: the 401 and
 * discovery, sign-in and a narrowed consent, the tools that consent allows, a gated call parked in the
 * member's and the client's name, a silent refresh, and the member disconnecting it on the console.
 */
describe('the official MCP TypeScript client connects over OAuth, decided by a member in Chromium', () => {
  let o: SdkOauthStack;
  let s: SdkOauthStack['s'];
  let stack: SdkOauthStack['stack'];
  let documents: SdkOauthStack['documents'];
  let callback: SdkOauthStack['callback'];
  let b: SdkOauthStack['b'];
  let page: Page;
  let memberId: string;
  let disconnectable: string;
  const clients: Client[] = [];

  before(async () => {
    o = await startSdkOauthStack(MEMBER);
    ({ s, stack, documents, callback, b, memberId, disconnectable } = o);
    page = b.page;
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await o?.close();
  });

  for (const kind of ['document', 'registered'] as const)
    describe(kind === 'document' ? 'named by its metadata document' : 'registered (DCR)', () => {
      const clientName = kind === 'document' ? 'Northwind Desk' : 'Northwind Desk Legacy';
      let provider: MemoryOAuthProvider;
      let clientId: string;
      let client: Client;
      let connection: ConnectionRow;
      let approvalId: string;
      /** The last audit row before this client's first request: what it caused comes after. */
      let mark: number;

      const newClient = () => {
        const c = new Client(
          { name: 'oauth-e2e', version: '1.0.0' },
          { supportedProtocolVersions: ['2026-07-28'], versionNegotiation: { mode: { pin: '2026-07-28' } } },
        );
        clients.push(c);
        return c;
      };
      const newTransport = () =>
        new StreamableHTTPClientTransport(new URL(stack.mcp), { authProvider: provider });

      it('is answered 401, discovers the authorization server from it, and is authorized by the member in Chromium', async () => {
        const documentPath = `/clients/${randomUUID()}.json`;
        const metadataUrl =
          kind === 'document'
            ? documents.publish(documentPath, { client_name: clientName, redirect_uris: [callback.url] })
            : undefined;
        await signOut(b, stack.url);
        [{ id: mark }] = await s.db.query<[{ id: number }]>(
          `SELECT coalesce(max(id), 0)::int AS id FROM audit_log`,
        );
        provider = new MemoryOAuthProvider({
          redirectUrl: callback.url,
          clientName,
          clientMetadataUrl: metadataUrl,
        });
        const transport = newTransport();
        await assert.rejects(newClient().connect(transport), UnauthorizedError);

        // Where the 401 led: the resource's metadata, then the authorization server's.
        const oauthRequests = await s.db.query<{ action: string }[]>(
          `SELECT action FROM audit_log WHERE door = 'oauth' AND id > $1 ORDER BY id`,
          [mark],
        );
        const asked = oauthRequests.map((r) => r.action);
        assert.ok(asked.includes('oauth GET /.well-known/oauth-protected-resource/api/mcp'), asked.join());
        assert.ok(asked.includes('oauth GET /.well-known/oauth-authorization-server'), asked.join());
        const [challenge] = await s.db.query<{ status: number }[]>(
          `SELECT status FROM audit_log WHERE door = 'mcp' AND id > $1 ORDER BY id LIMIT 1`,
          [mark],
        );
        assert.equal(challenge?.status, 401);

        assert.equal(provider.authorizations.length, 1);
        const authorization = provider.authorizations[0]!;
        clientId = provider.clientInformation()!.client_id;
        if (kind === 'document') {
          assert.equal(clientId, metadataUrl);
          assert.ok(!asked.includes('oauth POST /oauth/reg'), 'a document client registers nothing');
        } else {
          assert.ok(asked.includes('oauth POST /oauth/reg'), asked.join());
          const [registered] = await s.db.query<{ id: string }[]>(
            `SELECT id FROM oauth_records WHERE model = 'Client' AND id = $1`,
            [clientId],
          );
          assert.ok(registered, 'the registration is on record');
        }
        assert.equal(`${authorization.origin}${authorization.pathname}`, `${stack.url}/oauth/auth`);
        const q = authorization.searchParams;
        assert.deepEqual(
          [q.get('client_id'), q.get('redirect_uri'), q.get('code_challenge_method'), q.get('resource')],
          [clientId, callback.url, 'S256', stack.mcp],
        );
        assert.equal(q.get('state'), provider.lastState);
        assert.deepEqual(q.get('scope')?.split(' ').sort(), [...SCOPES].sort(), "the 401's scope");

        const shown = await consentInBrowser(b, authorization, KEPT, `oauth-consent-ts-${kind}`);
        assert.ok(shown.includes(clientName), shown);
        if (kind === 'document') {
          assert.match(shown, /from\s+localhost/);
          assert.ok(documents.requests(documentPath) >= 1, 'the authorization server fetched the document');
        } else assert.match(shown, /unverified/);

        const params = await callback.next();
        assert.equal(params.get('state'), provider.lastState, 'the state the SDK sent comes back');
        assert.equal(params.get('iss'), stack.url);
        await transport.finishAuth(params);
        assert.deepEqual(provider.tokens()?.scope?.split(' ').sort(), [...KEPT].sort());
        assert.ok(provider.tokens()?.refresh_token, 'a refresh token');

        const rows = await s.db.query<ConnectionRow[]>(
          `SELECT key_id, grant_id, client_id, client_name, client_host, client_kind FROM assistant_connections WHERE client_id = $1`,
          [clientId],
        );
        assert.equal(rows.length, 1);
        connection = rows[0]!;
        assert.deepEqual(
          [connection.client_name, connection.client_kind, connection.client_host],
          [clientName, kind, kind === 'document' ? 'localhost' : 'registered client'],
        );
        const [credential] = await s.db.query<{ kind: string; owner_user_id: string; scopes: string[] }[]>(
          `SELECT kind, owner_user_id, scopes FROM api_keys WHERE id = $1`,
          [connection.key_id],
        );
        assert.deepEqual(
          [credential?.kind, credential?.owner_user_id, [...(credential?.scopes ?? [])].sort()],
          ['assistant', memberId, [...KEPT].sort()],
        );
        assert.deepEqual(b.violations, [], 'no page needed anything its policy forbids');
      });

      it('lists exactly the tools the narrowed consent allows, and acts as the member', async () => {
        client = newClient();
        await client.connect(newTransport());
        const names = (await client.listTools()).tools.map((t) => t.name).sort();
        assert.deepEqual(names, KEPT_TOOLS);
        for (const unticked of ['workspace.get', 'connection.list', 'campaign.create', 'prospect.list'])
          assert.ok(!names.includes(unticked), `${unticked} needs a scope the member unticked`);

        const email = `northwind-${randomUUID().slice(0, 8)}@example.com`;
        const created = await client.callTool({
          name: 'lead.create',
          arguments: {
            first_name: 'Nora',
            email,
            source: 'oauth-e2e',
            consent,
            idempotency_key: randomUUID(),
          },
        });
        assert.equal(created.isError, undefined, JSON.stringify(created));
        assert.equal((created.structuredContent as { outcome: string }).outcome, 'CREATED');
        const [audit] = await s.db.query<{ client_id: string; actor_user_id: string; key_id: string }[]>(
          `SELECT client_id, actor_user_id, key_id FROM audit_log
            WHERE door = 'mcp' AND action = 'lead.create' AND outcome = 'allowed' AND client_id = $1`,
          [clientId],
        );
        assert.deepEqual(
          [audit?.client_id, audit?.actor_user_id, audit?.key_id],
          [clientId, memberId, connection.key_id],
        );
      });

      it('parks a gated call as asked by the member through this client', async () => {
        const answer = await client.callTool({
          name: 'connection.disconnect',
          arguments: { connectionId: disconnectable },
        });
        const parked = answer.structuredContent as {
          status: string;
          approval_id: string;
          approval_url: string;
        };
        assert.equal(parked.status, 'pending_approval');
        approvalId = parked.approval_id;
        assert.match(parked.approval_url, new RegExp(`/app/w/${s.workspace.id}/approvals/${approvalId}$`));
        const [approval] = await s.db.query<
          {
            status: string;
            requested_by_user: string;
            requested_by_key: string;
            email: string;
            name: string;
          }[]
        >(
          `SELECT a.status, a.requested_by_user, a.requested_by_key, u.email, k.name
             FROM approvals a JOIN users u ON u.id = a.requested_by_user JOIN api_keys k ON k.id = a.requested_by_key
            WHERE a.id = $1`,
          [approvalId],
        );
        assert.deepEqual(approval, {
          status: 'PENDING',
          requested_by_user: memberId,
          requested_by_key: connection.key_id,
          email: MEMBER,
          name: clientName,
        });
        assert.deepEqual(await parkedBy(s.db, connection.key_id), {
          client_id: clientId,
          actor_user_id: memberId,
        });
      });

      // The request's page names the client that asked, and the member it asked as.
      it('shows the client and the member on the console approval page', async () => {
        const res = await page.goto(`${stack.url}/app/w/${s.workspace.id}/approvals/${approvalId}`);
        assert.equal(res?.status(), 200);
        const main = await b.text('main');
        assert.ok(
          main.includes(`the assistant ${clientName}`),
          `the client, as the assistant that asked, on the approval page:\n${main}`,
        );
        assert.ok(
          main.includes(`acting as ${MEMBER}`),
          `the member it acts as, on the approval page:\n${main}`,
        );
      });

      it('refreshes silently once its access token is gone, with a rotated refresh token', async () => {
        const before = await grantRecords(s.db, connection.grant_id);
        const accessBefore = before.filter((r) => r.model === 'AccessToken');
        const refreshBefore = before.filter((r) => r.model === 'RefreshToken' && !r.consumed_at);
        assert.equal(refreshBefore.length, 1, JSON.stringify(before));
        const tokensBefore = provider.tokens()!;
        // What expiry does: the access token is no longer found, so the next call gets 401.
        await s.db.query(`DELETE FROM oauth_records WHERE model = 'AccessToken' AND grant_id = $1`, [
          connection.grant_id,
        ]);
        const found = await client.callTool({ name: 'lead.search', arguments: {} });
        assert.equal(found.isError, undefined, JSON.stringify(found));
        assert.equal(provider.authorizations.length, 1, 'no new authorization: a refresh');

        const after = await grantRecords(s.db, connection.grant_id);
        const accessAfter = after.filter((r) => r.model === 'AccessToken');
        assert.equal(accessAfter.length, 1, JSON.stringify(after));
        assert.ok(!accessBefore.some((r) => r.id === accessAfter[0]!.id), 'a new access token');
        const old = after.find((r) => r.model === 'RefreshToken' && r.id === refreshBefore[0]!.id);
        assert.ok(old?.consumed_at, 'the refresh token used is consumed');
        assert.equal(after.filter((r) => r.model === 'RefreshToken' && !r.consumed_at).length, 1);
        assert.notEqual(provider.tokens()!.access_token, tokensBefore.access_token);
        assert.notEqual(provider.tokens()!.refresh_token, tokensBefore.refresh_token, 'rotated');
        const refused = await s.db.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM audit_log WHERE door = 'mcp' AND status = 401 AND id > $1`,
          [mark],
        );
        assert.equal(
          refused[0]!.n,
          2,
          'the first request, and the call whose token was gone, were answered 401',
        );
      });

      // /app/w/<ws>/keys lists the connections under "Assistant connections", each with a Disconnect form.
      it('is disconnected by the member on the console; its next call is refused', async () => {
        await page.goto(`${stack.url}/app/w/${s.workspace.id}/keys`);
        assert.ok(
          await page.$('::-p-aria(Assistant connections[role="heading"])'),
          'a section headed "Assistant connections"',
        );
        const button = await page.$(`::-p-aria(Disconnect ${clientName}[role="button"])`);
        assert.ok(button, `a button named "Disconnect ${clientName}"`);
        const form = await page.evaluate((el) => {
          const f = (el as unknown as { form: { getAttribute(n: string): string | null } | null }).form;
          return [f?.getAttribute('action'), f?.getAttribute('method')?.toLowerCase()];
        }, button);
        assert.deepEqual(form, [
          `/app/w/${s.workspace.id}/keys/connections/${connection.key_id}/revoke`,
          'post',
        ]);
        // The console asks before it disconnects: the question names the assistant.
        const asked: string[] = [];
        page.once('dialog', (d) => {
          asked.push(d.message());
          void d.accept();
        });
        await Promise.all([page.waitForNavigation(), button.click()]);
        assert.match(asked[0] ?? '', new RegExp(`^Disconnect ${clientName}\\?`));

        const authorizations = provider.authorizations.length;
        // The access token is gone with the grant (401), the refresh token too (invalid_grant): the SDK
        // has nothing left but to ask the member again.
        await assert.rejects(client.callTool({ name: 'lead.search', arguments: {} }), UnauthorizedError);
        assert.equal(
          provider.authorizations.length,
          authorizations + 1,
          'the SDK starts a new authorization',
        );
        assert.equal(provider.tokens(), undefined, 'the SDK dropped the tokens it held');

        await assertConnectionEnded(s.db, connection, approvalId);
        const [audit] = await s.db.query<{ door: string; actor_user_id: string }[]>(
          `SELECT door, actor_user_id FROM audit_log
            WHERE action = 'assistant.disconnect' AND outcome = 'allowed' AND details->>'connection_id' = $1`,
          [connection.key_id],
        );
        assert.deepEqual(audit, { door: 'console', actor_user_id: memberId });
      });
    });
});
