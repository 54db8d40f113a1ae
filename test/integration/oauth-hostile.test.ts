import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { workspaceWithKey } from '../helpers/fixtures';
import {
  CookieJar,
  authorize,
  consoleBrowser,
  mcpCall,
  oauthStack,
  pkce,
  tokenRequest,
  type OauthStack,
} from '../helpers/oauth';
import {
  REDIRECT,
  assertRedirectedWith,
  assertRefusedAudit,
  authorizationRequest,
  connect,
  grantRecords,
  registered,
  requestParams,
  revokedSoon,
  tally,
  type Member,
} from '../helpers/oauth-hostile';

const ELSEWHERE = 'https://elsewhere.example/mcp';

/**
 * What a malicious or broken client tries with codes and tokens: PKCE left out or downgraded, a
 * verifier missing or wrong, a token for another resource, a replayed code or refresh token. Each is
 * refused with the error RFC 6749/7636/8707 and OAuth 2.1 name (redirected to the client with its
 * state and the issuer where the client and its redirect URI are known), audited as door `oauth`
 * (the assistant endpoint: `mcp`) with the reason, and leaves no connection, grant or token behind; a
 * replay ends everything its grant issued, the assistant connection included.
 * Client identity (metadata documents, registration) and the consent page: oauth-hostile-clients;
 * what an issued token reaches: oauth-hostile-connections.
 */
describe('the authorization server refuses hostile uses of codes and tokens, and changes nothing', () => {
  let t: TestDatabase;
  let stack: OauthStack;
  let member: Member;

  before(async () => {
    t = await freshDatabase();
    const a = await workspaceWithKey(t.db, { role: 'admin' });
    // Refused bearers are this file's subject: the per-address brake on them has tests of its own.
    stack = await oauthStack(t.db, { config: { refusedPerMinute: 10_000 } });
    member = await consoleBrowser(t.db, a.email);
  });
  after(async () => {
    await stack?.close();
    await t?.drop();
  });

  const request = (clientId: string, over: Record<string, string | undefined> = {}) =>
    requestParams(stack, clientId, over);
  const refresh = (clientId: string, token: string) =>
    tokenRequest(stack, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });

  describe('PKCE', () => {
    it('code_challenge_method=plain is refused with invalid_request, back to the client with state and iss', async () => {
      const clientId = await registered(stack);
      const before = await tally(t.db);
      const answer = await authorizationRequest(
        stack,
        new CookieJar(),
        request(clientId, { code_challenge_method: 'plain' }),
      );
      assertRedirectedWith(
        stack,
        answer.location,
        'invalid_request',
        /^not supported value of code_challenge_method$/,
      );
      await assertRefusedAudit(t.db, answer.res, 'oauth', /^invalid_request\b/);
      assert.deepEqual(await tally(t.db), before);
    });

    it('an authorization request without a code_challenge is refused with invalid_request', async () => {
      const clientId = await registered(stack);
      const before = await tally(t.db);
      const answer = await authorizationRequest(
        stack,
        new CookieJar(),
        request(clientId, { code_challenge: undefined, code_challenge_method: undefined }),
      );
      assertRedirectedWith(stack, answer.location, 'invalid_request', /requires PKCE/);
      await assertRefusedAudit(t.db, answer.res, 'oauth', /^invalid_request\b/);
      assert.deepEqual(await tally(t.db), before);
    });

    it('a code exchanged without its verifier, or with a wrong one, is refused with invalid_grant and not spent', async () => {
      const clientId = await registered(stack);
      const { verifier, challenge } = pkce();
      const done = await authorize(stack, member, request(clientId, { code_challenge: challenge }), {
        scopes: ['leads:read'],
      });
      const code = done.callback!.searchParams.get('code')!;
      const exchange = (extra: Record<string, string>) =>
        tokenRequest(stack, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          client_id: clientId,
          resource: stack.mcp,
          ...extra,
        });
      const before = await tally(t.db);
      const missing = await exchange({});
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error, 'invalid_grant');
      await assertRefusedAudit(t.db, missing, 'oauth', /^invalid_grant: code_verifier must be provided$/);
      const wrong = await exchange({ code_verifier: pkce().verifier });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error, 'invalid_grant');
      await assertRefusedAudit(t.db, wrong, 'oauth', /^invalid_grant: code_verifier does not match/);
      assert.deepEqual(await tally(t.db), before, 'no token issued, nothing spent');
      // The refusals spent nothing: the client holding the verifier still gets its tokens.
      assert.equal((await exchange({ code_verifier: verifier })).status, 200);
    });
  });

  describe('audience', () => {
    it('an authorization for another resource is refused with invalid_target', async () => {
      const clientId = await registered(stack);
      const before = await tally(t.db);
      const answer = await authorizationRequest(
        stack,
        member.jar,
        request(clientId, { resource: ELSEWHERE }),
      );
      assertRedirectedWith(
        stack,
        answer.location,
        'invalid_target',
        /^resource indicator is missing, or unknown$/,
      );
      await assertRefusedAudit(t.db, answer.res, 'oauth', /^invalid_target\b/);
      assert.deepEqual(await tally(t.db), before);
    });

    it('an access token whose audience is not exactly this resource is refused with invalid_token', async () => {
      const c = await connect(t.db, stack, member, { scopes: ['leads:read'] });
      assert.equal((await mcpCall(stack, c.access, 'tools/list')).status, 200);
      // As if the authorization server had issued it for another resource, or for this one and another.
      for (const aud of [ELSEWHERE, [stack.mcp, ELSEWHERE]]) {
        const [, changed] = await t.db.query<[unknown[], number]>(
          `UPDATE oauth_records SET payload = jsonb_set(payload, '{aud}', $1::jsonb)
            WHERE model = 'AccessToken' AND grant_id = (SELECT grant_id FROM assistant_connections WHERE key_id = $2)`,
          [JSON.stringify(aud), c.keyId],
        );
        assert.equal(changed, 1);
        const refused = await mcpCall(stack, c.access, 'tools/list');
        assert.equal(refused.status, 401, JSON.stringify(aud));
        assert.match(
          refused.headers.get('www-authenticate')!,
          /^Bearer error="invalid_token", resource_metadata="/,
        );
        assert.equal(refused.body?.result, undefined);
        await assertRefusedAudit(t.db, refused, 'mcp', /^access token for another resource \(/);
      }
    });

    it('an expired access token is refused with invalid_token', async () => {
      const c = await connect(t.db, stack, member, { scopes: ['leads:read'] });
      const past = Math.floor(Date.now() / 1000) - 120;
      await t.db.query(
        `UPDATE oauth_records SET payload = jsonb_set(payload, '{exp}', to_jsonb($1::int))
          WHERE model = 'AccessToken' AND grant_id = (SELECT grant_id FROM assistant_connections WHERE key_id = $2)`,
        [past, c.keyId],
      );
      const refused = await mcpCall(stack, c.access, 'tools/list');
      assert.equal(refused.status, 401);
      assert.match(refused.headers.get('www-authenticate')!, /^Bearer error="invalid_token"/);
      await assertRefusedAudit(t.db, refused, 'mcp', /^unknown or expired access token$/);
    });
  });

  describe('replay and revocation', () => {
    it('a refresh token used twice is refused, and its whole family ends with the connection', async () => {
      const c = await connect(t.db, stack, member, { scopes: ['leads:read'] });
      const rotated = await refresh(c.clientId, c.refresh);
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      const successor = String(rotated.body.refresh_token);
      const access2 = String(rotated.body.access_token);
      assert.equal((await mcpCall(stack, access2, 'tools/list')).status, 200);

      const replayed = await refresh(c.clientId, c.refresh);
      assert.equal(replayed.status, 400);
      assert.equal(replayed.body.error, 'invalid_grant');
      assert.equal(replayed.body.access_token, undefined);
      await assertRefusedAudit(t.db, replayed, 'oauth', /^invalid_grant: refresh token already used$/);
      // The connection ends right after the answer.
      await revokedSoon(t.db, c.keyId);
      assert.equal(await grantRecords(t.db, c.keyId), 0, 'no token, code or grant of it is left');
      const next = await refresh(c.clientId, successor);
      assert.equal(next.status, 400);
      assert.equal(next.body.error, 'invalid_grant');
      for (const access of [c.access, access2]) {
        const call = await mcpCall(stack, access, 'tools/list');
        assert.equal(call.status, 401);
        assert.match(call.headers.get('www-authenticate')!, /error="invalid_token"/);
      }
    });

    it('an authorization code used twice is refused, and the tokens issued from it end with the connection', async () => {
      const c = await connect(t.db, stack, member, { scopes: ['leads:read'] });
      const again = await tokenRequest(stack, {
        grant_type: 'authorization_code',
        code: c.code,
        redirect_uri: c.redirect,
        client_id: c.clientId,
        code_verifier: c.verifier,
        resource: stack.mcp,
      });
      assert.equal(again.status, 400);
      assert.equal(again.body.error, 'invalid_grant');
      assert.equal(again.body.access_token, undefined);
      await assertRefusedAudit(t.db, again, 'oauth', /^invalid_grant: authorization code already consumed$/);
      await revokedSoon(t.db, c.keyId);
      assert.equal(await grantRecords(t.db, c.keyId), 0);
      assert.equal((await mcpCall(stack, c.access, 'tools/list')).status, 401);
      const r = await refresh(c.clientId, c.refresh);
      assert.equal(r.status, 400);
      assert.equal(r.body.error, 'invalid_grant');
    });

    it('a client revoking its refresh token (RFC 7009) ends the grant and the connection', async () => {
      const c = await connect(t.db, stack, member, { scopes: ['leads:read'] });
      const res = await fetch(`${stack.url}/oauth/token/revocation`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token: c.refresh,
          token_type_hint: 'refresh_token',
          client_id: c.clientId,
        }).toString(),
      });
      assert.equal(res.status, 200);
      await revokedSoon(t.db, c.keyId);
      assert.equal((await mcpCall(stack, c.access, 'tools/list')).status, 401);
      assert.equal((await refresh(c.clientId, c.refresh)).body.error, 'invalid_grant');
    });
  });

  describe('audit reasons', () => {
    it('name the precise reason of every authorization-endpoint refusal, as the client was told it', async () => {
      const clientId = await registered(stack);
      const cases: [Record<string, string>, RegExp][] = [
        [request(clientId, { code_challenge_method: 'plain' }), /code_challenge_method/],
        [request(clientId, { code_challenge: undefined, code_challenge_method: undefined }), /PKCE/],
        [request(clientId, { resource: ELSEWHERE }), /resource indicator/],
        [request(clientId, { redirect_uri: 'http://127.0.0.1:4567/elsewhere' }), /redirect_uri/],
      ];
      for (const [params, reason] of cases) {
        const answer = await authorizationRequest(stack, new CookieJar(), params);
        await assertRefusedAudit(t.db, answer.res, 'oauth', reason);
      }
    });
  });
});
