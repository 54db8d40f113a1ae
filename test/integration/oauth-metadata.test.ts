import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPES } from '../../domain/kernel/permissions';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { workspaceWithKey } from '../helpers/fixtures';
import { consoleBrowser, mcpCall, oauthStack, type OauthStack } from '../helpers/oauth';
import { assertRefusedAudit, auditOf, connect } from '../helpers/oauth-hostile';

const PRM_PATHS = ['/.well-known/oauth-protected-resource/api/mcp', '/.well-known/oauth-protected-resource'];
const AS_PATHS = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'];

/**
 * What an MCP client reads before it connects (MCP authorization 2026-07-28, RFC 9728, RFC 8414):
 * the resource's metadata at both its addresses, the authorization server's at both discovery
 * addresses, and the 401 challenge that points to them; and that keys and access tokens stay apart
 * (a key works as before on both doors, an access token only on the assistant endpoint).
 */
describe('the OAuth metadata an MCP client discovers', () => {
  let t: TestDatabase;
  let stack: OauthStack;
  let a: Awaited<ReturnType<typeof workspaceWithKey>>;

  before(async () => {
    t = await freshDatabase();
    a = await workspaceWithKey(t.db, { role: 'admin', scopes: ['leads:read', 'leads:write'] });
    stack = await oauthStack(t.db);
  });
  after(async () => {
    await stack?.close();
    await t?.drop();
  });

  const json = async (path: string) => {
    const res = await fetch(`${stack.url}${path}`);
    assert.equal(res.status, 200, path);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json\b/, path);
    return (await res.json()) as Record<string, unknown>;
  };

  for (const path of PRM_PATHS)
    it(`the protected resource metadata at ${path}`, async () => {
      const prm = await json(path);
      assert.equal(prm.resource, `${stack.url}/api/mcp`);
      assert.deepEqual(prm.authorization_servers, [stack.url]);
      assert.deepEqual(prm.scopes_supported, [...SCOPES]);
      assert.ok(!(prm.scopes_supported as string[]).includes('offline_access'));
      assert.deepEqual(prm.bearer_methods_supported, ['header']);
    });

  for (const path of AS_PATHS)
    it(`the authorization server metadata at ${path}`, async () => {
      const as = await json(path);
      assert.equal(as.issuer, stack.url, 'the issuer is PUBLIC_URL exactly, no trailing slash');
      assert.ok(!String(as.issuer).endsWith('/'));
      assert.equal(as.authorization_endpoint, `${stack.url}/oauth/auth`);
      assert.equal(as.token_endpoint, `${stack.url}/oauth/token`);
      assert.equal(as.registration_endpoint, `${stack.url}/oauth/reg`);
      assert.equal(as.revocation_endpoint, `${stack.url}/oauth/token/revocation`);
      assert.deepEqual(as.response_types_supported, ['code']);
      assert.deepEqual([...(as.grant_types_supported as string[])].sort(), [
        'authorization_code',
        'refresh_token',
      ]);
      assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
      assert.equal(as.authorization_response_iss_parameter_supported, true);
      assert.equal(as.client_id_metadata_document_supported, true);
      assert.ok((as.token_endpoint_auth_methods_supported as string[]).includes('none'));
      assert.deepEqual(as.scopes_supported, [...SCOPES]);
    });

  it('both discovery documents are the same document', async () => {
    assert.deepEqual(await json(AS_PATHS[0]!), await json(AS_PATHS[1]!));
  });

  it('a call without credentials gets 401 naming the resource metadata and the scopes; an invalid bearer also says invalid_token', async () => {
    const none = await mcpCall(stack, undefined, 'tools/list');
    assert.equal(none.status, 401);
    const challenge = none.headers.get('www-authenticate')!;
    const prmUrl = `${stack.url}/.well-known/oauth-protected-resource/api/mcp`;
    assert.ok(
      challenge.startsWith(`Bearer resource_metadata="${prmUrl}"`),
      `no error before a token is presented: ${challenge}`,
    );
    assert.ok(challenge.includes(`scope="${SCOPES.join(' ')}"`), challenge);
    // The URL it names is the resource metadata itself.
    assert.equal((await json(new URL(prmUrl).pathname)).resource, stack.mcp);

    for (const bogus of ['x'.repeat(43), 'not-a-token', 'lk_live_notakey']) {
      const bad = await mcpCall(stack, bogus, 'tools/list');
      assert.equal(bad.status, 401, bogus);
      const header = bad.headers.get('www-authenticate')!;
      assert.ok(header.startsWith(`Bearer error="invalid_token", resource_metadata="${prmUrl}"`), header);
      await assertRefusedAudit(t.db, bad, 'mcp', /./);
    }
  });

  it('a key works on the assistant endpoint and on REST as before', async () => {
    const listed = await mcpCall(stack, a.key.key, 'tools/list');
    assert.equal(listed.status, 200);
    assert.ok(listed.body!.result!.tools!.some((x) => x.name === 'lead.create'));
    const rest = await fetch(`${stack.url}/api/v1/leads`, {
      headers: { authorization: `Bearer ${a.key.key}` },
    });
    assert.equal(rest.status, 200, await rest.clone().text());
    assert.equal((await auditOf(t.db, rest)).door, 'rest');
    // A key refused on REST is answered as REST always answered it: a bare challenge.
    const wrong = await fetch(`${stack.url}/api/v1/leads`, {
      headers: { authorization: 'Bearer lk_live_nope' },
    });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('www-authenticate'), 'Bearer');
  });

  it('an access token is for the assistant endpoint only: REST refuses it with 401', async () => {
    const member = await consoleBrowser(t.db, a.email);
    const c = await connect(t.db, stack, member, { scopes: ['leads:read'] });
    assert.equal((await mcpCall(stack, c.access, 'tools/list')).status, 200);
    const rest = await fetch(`${stack.url}/api/v1/leads`, {
      headers: { authorization: `Bearer ${c.access}` },
    });
    assert.equal(rest.status, 401);
    assert.equal(rest.headers.get('www-authenticate'), 'Bearer');
    await assertRefusedAudit(t.db, rest, 'rest', /./);
  });
});
