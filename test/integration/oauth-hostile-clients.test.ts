import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { workspaceWithKey } from '../helpers/fixtures';
import {
  authorize,
  consoleBrowser,
  follow,
  oauthStack,
  pkce,
  registerClient,
  tokenRequest,
  type OauthStack,
} from '../helpers/oauth';
import {
  REDIRECT,
  assertRefusedAudit,
  assertRenderedWith,
  authorizationRequest,
  consentPage,
  documentHost,
  postConsent,
  registered,
  requestParams,
  tally,
  type DocumentHost,
  type Member,
} from '../helpers/oauth-hostile';
import { until } from '../helpers/until';

/**
 * Who a client claims to be, and who decides for it: a metadata document that names other redirect
 * URIs, sits on a private address or is too big; a registration with a redirect URI no native app
 * would have, or one too many from an address; and the consent page posted without its CSRF token,
 * from another origin, by another browser, or with a form edited to ask for more. Each is refused
 * (rendered, never redirected, where the redirect URI is not the client's), audited as door `oauth`
 * or `console` with the reason, and records no client, connection, key or grant.
 */
describe('the authorization server refuses hostile clients and forged consent, and changes nothing', () => {
  let t: TestDatabase;
  let stack: OauthStack;
  let docs: DocumentHost;
  let member: Member;
  let a: Awaited<ReturnType<typeof workspaceWithKey>>;

  before(async () => {
    t = await freshDatabase();
    docs = await documentHost();
    a = await workspaceWithKey(t.db, { role: 'admin' });
    stack = await oauthStack(t.db, { documents: { ca: docs.ca } });
    member = await consoleBrowser(t.db, a.email);
  });
  after(async () => {
    await stack?.close();
    await docs?.close();
    await t?.drop();
  });

  const request = (clientId: string, over: Record<string, string | undefined> = {}) =>
    requestParams(stack, clientId, over);
  const register = (body: Record<string, unknown>, headers: Record<string, string> = {}, on = stack) =>
    fetch(`${on.url}/oauth/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ token_endpoint_auth_method: 'none', ...body }),
    });

  describe('client metadata documents', () => {
    const document = (path: string, host: 'localhost' | '127.0.0.1' = 'localhost') => ({
      client_id: docs.url(path, host),
      client_name: 'Document client',
      redirect_uris: ['https://assistant.example/callback'],
    });

    it("a redirect_uri not in the client's metadata document is refused on a page, never redirected", async () => {
      docs.serve('/client.json', document('/client.json'));
      const clientId = docs.url('/client.json');
      const before = await tally(t.db);
      const refused = await authorizationRequest(
        stack,
        member.jar,
        request(clientId, { redirect_uri: 'https://attacker.example/callback' }),
      );
      assertRenderedWith(refused, 'invalid_redirect_uri');
      await assertRefusedAudit(t.db, refused.res, 'oauth', /^invalid_redirect_uri\b/);
      assert.deepEqual(await tally(t.db), before);
      // The document itself is good: its own redirect URI goes on to the consent page.
      const good = await authorizationRequest(
        stack,
        member.jar,
        request(clientId, { redirect_uri: 'https://assistant.example/callback' }),
      );
      assert.match(good.location?.pathname ?? '', /^\/app\/oauth\//, good.body);
    });

    it('a metadata document on a private address is refused (invalid_client) without being fetched', async () => {
      const strict = await oauthStack(t.db, { documents: { ca: docs.ca, allowPrivate: false } });
      try {
        for (const host of ['127.0.0.1', 'localhost'] as const) {
          const path = `/private-${host}.json`;
          docs.serve(path, document(path, host));
          const before = await tally(t.db);
          const refused = await authorizationRequest(strict, member.jar, request(docs.url(path, host)));
          assertRenderedWith(refused, 'invalid_client');
          await assertRefusedAudit(
            t.db,
            refused.res,
            'oauth',
            /^client metadata document refused: .*non-public address/,
          );
          assert.equal(docs.hits(path), 0, `${host}: the address was refused before any request`);
          assert.deepEqual(await tally(t.db), before);
        }
      } finally {
        await strict.close();
      }
    });

    it('a metadata document over 5 KB is refused (invalid_client)', async () => {
      docs.serve('/big.json', {
        ...document('/big.json'),
        client_uri: `https://assistant.example/${'x'.repeat(5_200)}`,
      });
      const before = await tally(t.db);
      const refused = await authorizationRequest(stack, member.jar, request(docs.url('/big.json')));
      assertRenderedWith(refused, 'invalid_client');
      await assertRefusedAudit(
        t.db,
        refused.res,
        'oauth',
        /^client metadata document refused: the document is over 5120 bytes$/,
      );
      assert.equal(docs.hits('/big.json'), 1);
      assert.deepEqual(await tally(t.db), before);
    });
  });

  describe('registration', () => {
    it('refuses an http redirect URI that is not loopback', async () => {
      const before = await tally(t.db);
      for (const uri of ['http://assistant.example/callback', 'http://10.0.0.5/callback']) {
        const res = await register({ client_name: 'Plain http', redirect_uris: [uri] });
        const body = (await res.json()) as { error?: string };
        assert.equal(res.status, 400, uri);
        assert.ok(
          ['invalid_redirect_uri', 'invalid_client_metadata'].includes(body.error!),
          JSON.stringify(body),
        );
        await assertRefusedAudit(t.db, res, 'oauth', /^invalid_(redirect_uri|client_metadata)\b/);
      }
      assert.deepEqual(await tally(t.db), before);
    });

    it('tells the registering client why its redirect URI is refused', async () => {
      const res = await register({
        client_name: 'Plain http',
        redirect_uris: ['http://assistant.example/cb'],
      });
      const body = (await res.json()) as { error?: string; error_description?: string };
      assert.equal(body.error, 'invalid_redirect_uri');
      assert.match(body.error_description ?? '', /https, or http to a loopback address/);
      await assertRefusedAudit(t.db, res, 'oauth', /https, or http to a loopback address/);
    });

    it('a registered loopback redirect URI takes any port (RFC 8252), never another path or host', async () => {
      const clientId = await registered(stack);
      const { verifier, challenge } = pkce();
      const otherPort = 'http://127.0.0.1:9999/callback';
      const done = await authorize(
        stack,
        member,
        request(clientId, { redirect_uri: otherPort, code_challenge: challenge }),
        { scopes: ['leads:read'] },
      );
      assert.equal(`${done.callback?.origin}${done.callback?.pathname}`, otherPort);
      const tokens = await tokenRequest(stack, {
        grant_type: 'authorization_code',
        code: done.callback!.searchParams.get('code')!,
        redirect_uri: otherPort,
        client_id: clientId,
        code_verifier: verifier,
        resource: stack.mcp,
      });
      assert.equal(tokens.status, 200, JSON.stringify(tokens.body));

      const before = await tally(t.db);
      for (const uri of ['http://127.0.0.1:4567/elsewhere', 'http://localhost:4567/callback']) {
        const refused = await authorizationRequest(
          stack,
          member.jar,
          request(clientId, { redirect_uri: uri }),
        );
        assertRenderedWith(refused, 'invalid_redirect_uri');
        await assertRefusedAudit(t.db, refused.res, 'oauth', /^invalid_redirect_uri\b/);
      }
      assert.deepEqual(await tally(t.db), before);
    });

    it('more registrations a minute from one address than allowed: 429 with Retry-After, nothing registered', async () => {
      const limited = await oauthStack(t.db, { registrationsPerMinute: 3, config: { trustedProxyHops: 1 } });
      try {
        const from = (address: string) =>
          register(
            { client_name: 'Many', redirect_uris: [REDIRECT] },
            { 'x-forwarded-for': address },
            limited,
          );
        // The limit counts per wall-clock minute: start early enough in one that the burst stays in it.
        await until('an early second of the minute', () => new Date().getSeconds() < 45, 20_000);
        const before = await tally(t.db);
        for (let i = 0; i < 3; i++) assert.equal((await from('198.51.100.7')).status, 201);
        const over = await from('198.51.100.7');
        assert.equal(over.status, 429);
        const retry = Number(over.headers.get('retry-after'));
        assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, String(retry));
        assert.equal(((await over.json()) as { error: string }).error, 'rate_limited');
        await assertRefusedAudit(t.db, over, 'oauth', /^client registration limit of 3\/min per address$/);
        assert.equal((await tally(t.db)).Client, before.Client! + 3, 'the fourth registered nothing');
        assert.equal((await from('198.51.100.8')).status, 201, 'another address has its own allowance');
      } finally {
        await limited.close();
      }
    });

    it('the limit holds whatever the spelling of the registration path', async () => {
      const limited = await oauthStack(t.db, {
        registrationsPerMinute: 1,
        config: { trustedProxyHops: 1 },
      });
      try {
        const at = (path: string) =>
          fetch(`${limited.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.9' },
            body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
          });
        await until('an early second of the minute', () => new Date().getSeconds() < 45, 20_000);
        assert.equal((await at('/oauth/reg')).status, 201);
        const before = await tally(t.db);
        for (const path of ['/oauth/reg', '/oauth/reg/', '/oauth/Reg', '/oauth/REG/'])
          assert.equal((await at(path)).status, 429, path);
        assert.equal((await tally(t.db)).Client, before.Client);
      } finally {
        await limited.close();
      }
    });
  });

  describe('the consent page', () => {
    const form = (csrf?: string, scopes = ['leads:read'], workspace = a.workspace.id) => {
      const f = new URLSearchParams({ decision: 'allow', workspace });
      for (const s of scopes) f.append('scopes', s);
      if (csrf !== undefined) f.set('_csrf', csrf);
      return f;
    };
    const connectionsOf = async (clientId: string) =>
      t.db.query<{ scopes: string[]; workspace_id: string }[]>(
        `SELECT k.scopes, c.workspace_id FROM assistant_connections c JOIN api_keys k ON k.id = c.key_id
          WHERE c.client_id = $1`,
        [clientId],
      );

    it('refuses a decision without the CSRF token, with a wrong one, or from another origin; records nothing', async () => {
      const clientId = await registered(stack);
      const page = await consentPage(stack, member.jar, request(clientId));
      const before = await tally(t.db);
      const tries: [URLSearchParams, string | undefined, RegExp][] = [
        [form(), stack.url, /^POST without a CSRF token$/],
        [form('x'.repeat(member.csrf.length)), stack.url, /^POST with a wrong CSRF token$/],
        [
          form(member.csrf),
          'https://attacker.example',
          /^POST from another origin: https:\/\/attacker\.example$/,
        ],
        [form(member.csrf), 'null', /^POST from another origin: null$/],
        [form(member.csrf), undefined, /^POST without an Origin$/],
      ];
      for (const [body, origin, reason] of tries) {
        const { res, location } = await postConsent(member.jar, page.url, body, origin);
        assert.equal(res.status, 403, String(reason));
        assert.equal(location, undefined);
        assert.match(await res.text(), /<h1>Not allowed<\/h1>/);
        await assertRefusedAudit(t.db, res, 'console', reason);
      }
      assert.deepEqual(await tally(t.db), before, 'no connection, key or grant');

      // Another member, signed in in their own browser, cannot decide this browser's authorization.
      const b = await workspaceWithKey(t.db, { role: 'admin' });
      const other = await consoleBrowser(t.db, b.email);
      const foreign = await postConsent(
        other.jar,
        page.url,
        form(other.csrf, ['leads:read'], b.workspace.id),
        stack.url,
      );
      assert.equal(foreign.res.status, 404);
      await assertRefusedAudit(t.db, foreign.res, 'console', /^no live authorization for this browser$/);
      assert.deepEqual(
        await tally(t.db),
        { ...before, keys: before.keys! + 1 },
        "only b's own key was added",
      );

      // The refusals left the authorization waiting: the member's own decision still completes it.
      const mine = await postConsent(member.jar, page.url, form(member.csrf), stack.url);
      assert.equal(mine.res.status, 303);
      assert.equal((await connectionsOf(clientId)).length, 1);
    });

    it('a form edited to a workspace the member does not belong to is refused; nothing is recorded', async () => {
      const clientId = await registered(stack);
      const page = await consentPage(stack, member.jar, request(clientId));
      const b = await workspaceWithKey(t.db, { role: 'admin' });
      const before = await tally(t.db);
      const { res } = await postConsent(
        member.jar,
        page.url,
        form(member.csrf, ['leads:read'], b.workspace.id),
        stack.url,
      );
      assert.equal(res.status, 422);
      await assertRefusedAudit(t.db, res, 'console', /^consent for a workspace the user is no member of/);
      assert.deepEqual(await tally(t.db), before);
      assert.deepEqual(await connectionsOf(clientId), []);
    });

    it('a form edited to tick scopes the client did not ask for grants only what it asked', async () => {
      const clientId = await registered(stack);
      const { verifier, challenge } = pkce();
      const page = await consentPage(
        stack,
        member.jar,
        request(clientId, { scope: 'leads:read', code_challenge: challenge }),
      );
      const posted = await postConsent(
        member.jar,
        page.url,
        form(member.csrf, ['leads:read', 'leads:write', 'business:write']),
        stack.url,
      );
      assert.equal(posted.res.status, 303);
      assert.deepEqual(await connectionsOf(clientId), [
        { scopes: ['leads:read'], workspace_id: a.workspace.id },
      ]);
      const callback = await follow(member.jar, posted.location!, stack.url);
      const code = new URL(callback.leaving!).searchParams.get('code')!;
      const tokens = await tokenRequest(stack, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: verifier,
        resource: stack.mcp,
      });
      assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
      assert.equal(tokens.body.scope, 'leads:read');
    });

    it("shows a registered client's self-chosen name as text, never as markup", async () => {
      const name = '<img src=x onerror=alert(1)> "Trusted" & Co';
      const reg = await registerClient(stack, { client_name: name, redirect_uris: [REDIRECT] });
      assert.equal(reg.status, 201);
      const page = await consentPage(stack, member.jar, request(String(reg.body.client_id)));
      assert.ok(!page.html.includes('<img src=x'), 'the name is not markup');
      assert.ok(page.html.includes('&lt;img src=x onerror=alert(1)&gt; &quot;Trusted&quot; &amp; Co'));
      assert.match(page.html, /unverified/);
    });
  });
});
