import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { addConnection } from '../../domain/connections/operations/add';
import { addMember } from '../../domain/identity/operations/member-add';
import { removeMember } from '../../domain/identity/operations/member-remove';
import { setMemberRole } from '../../domain/identity/operations/member-set-role';
import type { Services } from '../../domain/kernel/operation';
import { createLead } from '../../domain/leads/operations/create';
import { operations } from '../../domain/oauth';
import { approvalEnvironment } from '../helpers/approval-environment';
import type { TestDatabase } from '../helpers/db';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { intakeBody } from '../helpers/leads';
import {
  consoleBrowser,
  mcpCall,
  oauthStack,
  tokenRequest,
  type McpAnswer,
  type OauthStack,
} from '../helpers/oauth';
import { assertRefusedAudit, connect, type Connected } from '../helpers/oauth-hostile';

type ToolResult = {
  content?: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/**
 * What an access token reaches once issued: no more than its connection's member may, in the one
 * workspace consented to, read afresh on every call (a demotion or a removal counts from the next
 * call), and nothing once the connection is revoked, when what it parked for approval is withdrawn
 * too. The approval gate runs on Temporal's time-skipping server, so a gated call really parks.
 */
describe('an access token reaches only what its connection may, for as long as it may', () => {
  let t: TestDatabase;
  let services: Services;
  let stop: () => Promise<void>;
  let stack: OauthStack;

  before(async () => {
    ({ t, services, stop } = await approvalEnvironment('oauth-hostile'));
    stack = await oauthStack(t.db, {
      ports: { approvals: services.approvals },
      config: { refusedPerMinute: 10_000 },
    });
  });
  after(async () => {
    await stack?.close();
    await stop?.();
  });

  const call = async (access: string, name: string, args: Record<string, unknown>) => {
    const answer = await mcpCall(stack, access, 'tools/call', { name, arguments: args });
    return { ...answer, result: answer.body?.result as ToolResult | undefined };
  };
  const toolsOf = async (access: string) => {
    const listed = await mcpCall(stack, access, 'tools/list');
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    return (listed.body as McpAnswer).result!.tools!.map((x) => x.name);
  };
  const lead = async (workspaceId: string) => {
    const created = (await asOperator(
      services,
      createLead,
      { ...intakeBody(), idempotency_key: randomUUID() },
      { workspaceId },
    )) as { data: { id: string; email: string } };
    return created.data;
  };

  it('a token of workspace A finds nothing of workspace B, though its member belongs to both', async () => {
    const a = await workspaceWithKey(t.db, { role: 'admin' });
    const b = await workspaceWithKey(t.db, { role: 'admin' });
    await asOperator(services, addMember, { email: a.email, role: 'admin' }, { workspaceId: b.workspace.id });
    const ours = await lead(a.workspace.id);
    const theirs = await lead(b.workspace.id);
    const member = await consoleBrowser(t.db, a.email);
    const c = await connect(t.db, stack, member, { scopes: ['leads:read'], workspace: a.workspace.id });

    const mine = await call(c.access, 'lead.get', { leadId: ours.id });
    assert.equal(mine.status, 200);
    assert.equal(mine.result?.isError, undefined, JSON.stringify(mine.result));
    assert.equal((mine.result!.structuredContent!.data as { id: string }).id, ours.id);

    const foreign = await call(c.access, 'lead.get', { leadId: theirs.id });
    assert.equal(foreign.status, 200);
    assert.equal(foreign.result?.isError, true);
    assert.match(foreign.result.content![0]!.text, /^not_found:/);
    const text = JSON.stringify(foreign.body);
    assert.ok(!text.includes(theirs.email) && !text.includes(b.workspace.id), 'nothing of B is returned');
    const row = await assertRefusedAudit(t.db, foreign, 'mcp', /^No such lead in this workspace\.$/);
    assert.equal(row.client_id, c.clientId);
    assert.equal(row.key_id, c.keyId);

    const ids = async (args: Record<string, unknown>) => {
      const found = await call(c.access, 'lead.search', args);
      assert.equal(found.result?.isError, undefined, JSON.stringify(found.body));
      return (found.result!.structuredContent!.data as { id: string }[]).map((l) => l.id);
    };
    assert.deepEqual(await ids({}), [ours.id], "a search lists A's leads only");
    assert.deepEqual(await ids({ query: theirs.email }), [], "B's lead is not found by its address");
  });

  it('a demotion narrows the next call and the tool list; a removal ends every call', async () => {
    const w = await workspaceWithKey(t.db, { role: 'admin' });
    // Another admin, so the member's own role can change.
    await asOperator(
      services,
      addMember,
      { email: `keeper.${randomUUID()}@example.com`, role: 'owner' },
      {
        workspaceId: w.workspace.id,
      },
    );
    const member = await consoleBrowser(t.db, w.email);
    const c = await connect(t.db, stack, member, { scopes: ['leads:read', 'leads:write'] });
    const existing = await lead(w.workspace.id);
    assert.ok((await toolsOf(c.access)).includes('lead.create'));
    const created = await call(c.access, 'lead.create', { ...intakeBody(), idempotency_key: randomUUID() });
    assert.equal(created.result?.isError, undefined, JSON.stringify(created.result));

    await asOperator(
      services,
      setMemberRole,
      { email: w.email, role: 'viewer' },
      { workspaceId: w.workspace.id },
    );
    const refused = await call(c.access, 'lead.create', { ...intakeBody(), idempotency_key: randomUUID() });
    // A tool the member's role no longer allows is not offered: calling it is refused as an unknown tool.
    assert.deepEqual(refused.body?.error, { code: -32602, message: 'Unknown tool: lead.create' });
    await assertRefusedAudit(
      t.db,
      refused,
      'mcp',
      /^tool lead\.create is unknown or not allowed for this key$/,
    );
    const tools = await toolsOf(c.access);
    assert.ok(!tools.includes('lead.create'), tools.join());
    assert.ok(tools.includes('lead.get'), tools.join());
    assert.equal((await call(c.access, 'lead.get', { leadId: existing.id })).result?.isError, undefined);

    await asOperator(services, removeMember, { email: w.email }, { workspaceId: w.workspace.id });
    // A removal revokes the connections the member made: the next call is 401, so the client knows to
    // ask again (and the consent page refuses someone who is no member).
    const gone = await call(c.access, 'lead.get', { leadId: existing.id });
    assert.equal(gone.status, 401);
    assert.match(
      gone.headers.get('www-authenticate') ?? '',
      /^Bearer error="invalid_token", resource_metadata=/,
    );
    await assertRefusedAudit(t.db, gone, 'mcp', /^connection revoked$/);
    const [credential] = await t.db.query<{ revoked_at: Date | null }[]>(
      `SELECT revoked_at FROM api_keys WHERE id = $1`,
      [c.keyId],
    );
    assert.ok(credential?.revoked_at, 'the connection is revoked with the removal');
    // Its refresh token gets no new access token either.
    const refreshed = await tokenRequest(stack, {
      grant_type: 'refresh_token',
      refresh_token: c.refresh,
      client_id: c.clientId,
      resource: stack.mcp,
    });
    assert.equal(refreshed.status, 400);
    assert.equal(refreshed.body.error, 'invalid_grant');
  });

  describe('revoking a connection', () => {
    let c: Connected;
    let approvalId: string;

    before(async () => {
      const w = await workspaceWithKey(t.db, { role: 'admin' });
      await asOperator(
        services,
        addMember,
        { email: `owner.${randomUUID()}@example.com`, role: 'owner' },
        {
          workspaceId: w.workspace.id,
        },
      );
      const calendar = (await asOperator(
        services,
        addConnection,
        { system: 'google_calendar' },
        { workspaceId: w.workspace.id },
      )) as { id: string };
      const member = await consoleBrowser(t.db, w.email);
      c = await connect(t.db, stack, member, { scopes: ['business:read', 'business:write'] });
      const parked = await call(c.access, 'connection.disconnect', { connectionId: calendar.id });
      assert.equal(parked.result?.isError, undefined, JSON.stringify(parked.body));
      assert.equal(parked.result!.structuredContent!.status, 'pending_approval');
      approvalId = String(parked.result!.structuredContent!.approval_id);
    });

    const approval = async () =>
      (
        await t.db.query<{ status: string; reason: string | null; requested_by_key: string }[]>(
          `SELECT status, reason, requested_by_key FROM approvals WHERE id = $1`,
          [approvalId],
        )
      )[0]!;

    it('ends its access token and refresh token at once, and withdraws what it parked', async () => {
      assert.deepEqual(await approval(), { status: 'PENDING', reason: null, requested_by_key: c.keyId });
      assert.equal((await mcpCall(stack, c.access, 'tools/list')).status, 200);

      await asOperator(services, operations.revokeAssistantConnection, { id: c.keyId });

      const after = await mcpCall(stack, c.access, 'tools/list');
      assert.equal(after.status, 401);
      assert.match(
        after.headers.get('www-authenticate')!,
        /^Bearer error="invalid_token", resource_metadata="/,
      );
      await assertRefusedAudit(t.db, after, 'mcp', /unknown or expired access token/);
      const refreshed = await tokenRequest(stack, {
        grant_type: 'refresh_token',
        refresh_token: c.refresh,
        client_id: c.clientId,
      });
      assert.equal(refreshed.status, 400);
      assert.equal(refreshed.body.error, 'invalid_grant');
      await assertRefusedAudit(t.db, refreshed, 'oauth', /^invalid_grant: /);

      assert.deepEqual(await approval(), {
        status: 'CANCELLED',
        reason: 'requester connection revoked',
        requested_by_key: c.keyId,
      });
      const [key] = await t.db.query<{ revoked_at: Date | null }[]>(
        `SELECT revoked_at FROM api_keys WHERE id = $1`,
        [c.keyId],
      );
      assert.ok(key!.revoked_at);
      const [records] = await t.db.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM oauth_records WHERE grant_id = (SELECT grant_id FROM assistant_connections WHERE key_id = $1)`,
        [c.keyId],
      );
      assert.equal(records!.n, 0);
    });
  });
});
