import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { workspaceWithKey } from '../helpers/fixtures';
import {
  authorize,
  consoleBrowser,
  mcpCall,
  oauthStack,
  pkce,
  registerClient,
  tokenRequest,
  type OauthStack,
} from '../helpers/oauth';

const REDIRECT = 'http://127.0.0.1:4567/callback';

/**
 * An assistant connected the OAuth way, end to end without a browser: a client registers, a signed-in
 * member consents on the console (narrowing the scopes), the code is exchanged with its PKCE verifier,
 * the access token calls the assistant endpoint as the member with the narrower authority, the refresh
 * token rotates, and revoking the connection ends it.
 */
describe('an assistant connected over OAuth', () => {
  let t: TestDatabase;
  let stack: OauthStack;
  let a: Awaited<ReturnType<typeof workspaceWithKey>>;

  before(async () => {
    t = await freshDatabase();
    a = await workspaceWithKey(t.db, { role: 'admin' });
    stack = await oauthStack(t.db);
  });
  after(async () => {
    await stack.close();
    await t.drop();
  });

  it('registers, consents, exchanges, calls, refreshes and is revoked', async () => {
    const reg = await registerClient(stack, { client_name: 'Flow client', redirect_uris: [REDIRECT] });
    assert.equal(reg.status, 201, JSON.stringify(reg.body));
    const clientId = String(reg.body.client_id);
    const member = await consoleBrowser(t.db, a.email);
    const { verifier, challenge } = pkce();
    const done = await authorize(
      stack,
      member,
      {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'st-1',
        scope: 'leads:read leads:write',
        resource: stack.mcp,
      },
      { scopes: ['leads:read'] },
    );
    if (!done.callback)
      console.log(
        await t.db.query(
          `SELECT door, action, outcome, status, reason FROM audit_log ORDER BY id DESC LIMIT 6`,
        ),
      );
    assert.ok(
      done.callback,
      `no callback: ${done.consent?.status} ${await done.consent?.text()} ${done.refused?.status} ${await done.refused?.text()}`,
    );
    assert.equal(done.callback.searchParams.get('state'), 'st-1');
    assert.equal(done.callback.searchParams.get('iss'), stack.url);
    const code = done.callback.searchParams.get('code')!;
    const tokens = await tokenRequest(stack, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource: stack.mcp,
    });
    assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
    assert.equal(tokens.body.token_type, 'Bearer');
    assert.equal(tokens.body.expires_in, 900);
    assert.equal(tokens.body.scope, 'leads:read');
    const access = String(tokens.body.access_token);

    const listed = await mcpCall(stack, access, 'tools/list');
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const names = listed.body!.result!.tools!.map((x) => x.name);
    assert.ok(names.includes('lead.get'), names.join());
    assert.ok(!names.includes('lead.create'), names.join());

    const step = await mcpCall(stack, access, 'tools/call', {
      name: 'lead.create',
      arguments: { name: 'x' },
    });
    assert.equal(step.status, 403);
    assert.match(step.headers.get('www-authenticate')!, /error="insufficient_scope", scope="leads:write"/);

    const none = await mcpCall(stack, undefined, 'tools/list');
    assert.equal(none.status, 401);
    assert.match(
      none.headers.get('www-authenticate')!,
      /^Bearer resource_metadata="http:\/\/localhost:\d+\/\.well-known\/oauth-protected-resource\/api\/mcp"/,
    );

    const refreshed = await tokenRequest(stack, {
      grant_type: 'refresh_token',
      refresh_token: String(tokens.body.refresh_token),
      client_id: clientId,
      resource: stack.mcp,
    });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.notEqual(refreshed.body.refresh_token, tokens.body.refresh_token);
    const again = await mcpCall(stack, String(refreshed.body.access_token), 'tools/list');
    assert.equal(again.status, 200);

    const audit = await t.db.query<{ client_id: string | null; actor_user_id: string }[]>(
      `SELECT client_id, actor_user_id FROM audit_log WHERE door = 'mcp' AND action = 'tools/list' AND outcome = 'allowed' ORDER BY id DESC LIMIT 1`,
    );
    assert.equal(audit[0]!.client_id, clientId);
    assert.equal(audit[0]!.actor_user_id, member.userId);
  });
});
