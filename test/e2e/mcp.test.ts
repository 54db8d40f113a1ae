import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { workspaceWithKey } from '../helpers/fixtures';
import { intakeBody, postLead, eventsFor } from '../helpers/leads';
import { mcpClient, serve } from '../helpers/mcp';
import type { Role, Scope } from '../../domain/kernel/permissions';

const LEAD_READ_TOOLS = ['conversation.get', 'conversation.list', 'lead.get', 'lead.search'];
const LEAD_WRITE_TOOLS = [
  'conversation.reply',
  'lead.add_note',
  'lead.archive',
  'lead.create',
  'lead.set_status',
  'lead.update',
];
const BUSINESS_READ_TOOLS = [
  'approval.cancel',
  'approval.get',
  'approval.list',
  'connection.list',
  'workspace.get',
];

for (const protocolVersion of ['2025-06-18', '2025-11-25']) {
  describe(`the assistant endpoint, for a client of protocol ${protocolVersion}`, () => {
    let t: TestDatabase;
    let api: Awaited<ReturnType<typeof serve>>;
    const connect = (key: string, query?: string) => mcpClient(api.url, key, { protocolVersion, query });
    const keyWith = async (scopes: Scope[], role: Role = 'admin') =>
      (await workspaceWithKey(t.db, { scopes, role })).key.key;

    before(async () => {
      t = await freshDatabase();
      api = await serve(testApp(t.db));
    });
    after(async () => {
      await api.close();
      await t.drop();
    });

    it('initializes at that version and answers ping', async () => {
      const { client, transport } = await connect(await keyWith(['leads:read']));
      assert.equal(transport.protocolVersion, protocolVersion);
      assert.equal(client.getServerVersion()?.name, 'lead-service');
      assert.deepEqual(await client.ping(), {});
      await client.close();
    });

    it('lists exactly the tools the scopes and the live role allow, in a fixed order', async () => {
      const names = async (scopes: Scope[], role: Role = 'admin') => {
        const { client } = await connect(await keyWith(scopes, role));
        const { tools } = await client.listTools();
        await client.close();
        return tools.map((x) => x.name);
      };
      assert.deepEqual(await names(['leads:read']), LEAD_READ_TOOLS);
      assert.deepEqual(
        await names(['leads:read', 'leads:write']),
        [...LEAD_READ_TOOLS, ...LEAD_WRITE_TOOLS].sort(),
      );
      assert.deepEqual(await names(['leads:write'], 'viewer'), [], 'a viewer cannot write');
      assert.deepEqual(
        await names(['business:read', 'business:write']),
        [...BUSINESS_READ_TOOLS, 'connection.disconnect'].sort(),
      );
      assert.deepEqual(
        await names(['business:read', 'business:write'], 'member'),
        BUSINESS_READ_TOOLS,
        'disconnecting needs an admin',
      );
    });

    it('describes each tool for a model: title, schemas, honest annotations; underscore names on request', async () => {
      const key = await keyWith(['leads:read', 'leads:write', 'business:read', 'business:write']);
      const { client } = await connect(key);
      const { tools } = await client.listTools();
      const setStatus = tools.find((x) => x.name === 'lead.set_status')!;
      assert.equal(setStatus.title, "Set a lead's status");
      assert.deepEqual(Object.keys(setStatus.inputSchema.properties!).sort(), ['leadId', 'status']);
      assert.deepEqual(setStatus.inputSchema.required, ['leadId', 'status']);
      assert.ok(setStatus.outputSchema);
      assert.deepEqual(setStatus.annotations, {
        title: "Set a lead's status",
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      assert.equal(tools.find((x) => x.name === 'lead.search')!.annotations!.readOnlyHint, true);
      assert.equal(tools.find((x) => x.name === 'connection.disconnect')!.annotations!.destructiveHint, true);
      assert.equal(tools.find((x) => x.name === 'conversation.reply')!.annotations!.openWorldHint, true);
      for (const tool of tools)
        assert.ok(tool.name.length <= 64 && tool.description && tool.title, tool.name);
      await client.close();
      const underscored = await connect(key, '?tool_names=underscore');
      const names = (await underscored.client.listTools()).tools.map((x) => x.name);
      assert.deepEqual(
        names,
        tools.map((x) => x.name.replace('.', '_')),
      );
      assert.ok(names.every((n) => /^[a-zA-Z0-9_-]{1,64}$/.test(n)));
      await underscored.client.close();
    });

    it('lead.set_status changes the lead and emits lead.status_changed, by either name', async () => {
      const w = await workspaceWithKey(t.db, { scopes: ['leads:read', 'leads:write'] });
      const lead = (await postLead(testApp(t.db), w.key.key, intakeBody())).body.data as { id: string };
      const { client } = await connect(w.key.key);
      const moved = (await client.callTool({
        name: 'lead.set_status',
        arguments: { leadId: lead.id, status: 'CONTACTED' },
      })) as CallToolResult;
      assert.equal(moved.isError, undefined);
      const structured = moved.structuredContent as { lead: { status: string }; warnings: unknown[] };
      assert.equal(structured.lead.status, 'CONTACTED');
      assert.deepEqual(
        JSON.parse((moved.content[0] as { text: string }).text),
        structured,
        'the same JSON as text',
      );
      const again = (await client.callTool({
        name: 'lead_set_status',
        arguments: { leadId: lead.id, status: 'RESPONDED' },
      })) as CallToolResult;
      assert.equal((again.structuredContent as { lead: { status: string } }).lead.status, 'RESPONDED');
      const changes = (await eventsFor(t.db, lead.id)).filter((e) => e.type === 'lead.status_changed');
      assert.deepEqual(
        changes.map((e) => e.data.status),
        ['CONTACTED', 'RESPONDED'],
      );
      await client.close();
    });

    it('answers protocol misuse with JSON-RPC errors and domain refusals with tool errors', async () => {
      const w = await workspaceWithKey(t.db, { scopes: ['leads:read', 'leads:write'] });
      const lead = (await postLead(testApp(t.db), w.key.key, intakeBody())).body.data as { id: string };
      const { client } = await connect(w.key.key);
      const protocolError = async (name: string) => {
        try {
          await client.callTool({ name, arguments: {} });
        } catch (err) {
          assert.ok(err instanceof McpError);
          return { code: err.code, message: err.message.replace(name, '<name>') };
        }
        assert.fail(`${name} was accepted`);
      };
      const unknown = await protocolError('lead.teleport');
      assert.equal(unknown.code, -32602);
      assert.deepEqual(
        await protocolError('connection.disconnect'),
        unknown,
        'an unlisted tool answers as an unknown one',
      );
      const bad = (await client.callTool({
        name: 'lead.get',
        arguments: { leadId: 'nope' },
      })) as CallToolResult;
      assert.equal(bad.isError, true);
      assert.match(
        (bad.content[0] as { text: string }).text,
        /^invalid_request: leadId must be a UUID \(field: leadId\)$/,
      );
      const refused = (await client.callTool({
        name: 'lead.set_status',
        arguments: { leadId: lead.id, status: 'WON' },
      })) as CallToolResult;
      assert.equal(refused.isError, true);
      assert.match(
        (refused.content[0] as { text: string }).text,
        /^conflict: A lead cannot move from NEW to WON\.$/,
      );
      const missing = (await client.callTool({
        name: 'lead.get',
        arguments: { leadId: '00000000-0000-4000-8000-000000000000' },
      })) as CallToolResult;
      assert.match((missing.content[0] as { text: string }).text, /^not_found:/);
      for (const field of ['model', 'temperature', 'max_tokens', 'system_prompt']) {
        const r = (await client.callTool({
          name: 'lead.search',
          arguments: { [field]: 'x' },
        })) as CallToolResult;
        assert.equal(r.isError, true, field);
        assert.match(
          (r.content[0] as { text: string }).text,
          new RegExp(`^invalid_request: .*\\(field: ${field}\\)$`),
        );
      }
      await client.close();
    });

    it('never crosses answers between two keys calling at once', async () => {
      const a = await workspaceWithKey(t.db, { scopes: ['business:read'] });
      const b = await workspaceWithKey(t.db, { scopes: ['business:read'] });
      const [ca, cb] = [await connect(a.key.key), await connect(b.key.key)];
      const calls = Array.from({ length: 20 }, (_, i) => {
        const [who, expected] = i % 2 ? [cb, b.workspace.id] : [ca, a.workspace.id];
        return who.client
          .callTool({ name: 'workspace.get', arguments: {} })
          .then(
            (r) =>
              ((r as CallToolResult).structuredContent as { workspace: { id: string } }).workspace.id ===
              expected,
          );
      });
      assert.deepEqual(await Promise.all(calls), Array(20).fill(true));
      await ca.client.close();
      await cb.client.close();
    });

    it('refuses a missing or revoked key with 401 and WWW-Authenticate before reading JSON-RPC; a foreign Origin with 403; GET and DELETE with 405', async () => {
      const key = await keyWith(['leads:read']);
      const post = (headers: Record<string, string>, body = '{"jsonrpc":"2.0","id":1,"method":"ping"}') =>
        fetch(`${api.url}/api/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body,
        });
      const none = await post({}, 'not json at all');
      assert.equal(none.status, 401);
      assert.equal(none.headers.get('www-authenticate'), 'Bearer');
      assert.equal(none.headers.get('access-control-allow-origin'), null);
      const foreign = await post({ authorization: `Bearer ${key}`, origin: 'https://evil.example.com' });
      assert.equal(foreign.status, 403);
      const local = await post({ authorization: `Bearer ${key}`, origin: 'http://localhost:1234' });
      assert.equal(local.status, 200);
      for (const method of ['GET', 'DELETE']) {
        const r = await fetch(`${api.url}/api/mcp`, { method, headers: { authorization: `Bearer ${key}` } });
        assert.equal(r.status, 405, method);
      }
    });

    it('lead.create is idempotent by the key the tool takes', async () => {
      const w = await workspaceWithKey(t.db, { scopes: ['leads:read', 'leads:write'] });
      const { client } = await connect(w.key.key);
      const args = { ...intakeBody(), idempotency_key: `form-${protocolVersion}-1` };
      const first = (await client.callTool({ name: 'lead.create', arguments: args })) as CallToolResult;
      const second = (await client.callTool({ name: 'lead.create', arguments: args })) as CallToolResult;
      assert.equal((first.structuredContent as { outcome: string }).outcome, 'CREATED');
      assert.deepEqual(second.structuredContent, first.structuredContent, 'the first answer, replayed');
      const [{ n }] = await t.db.query<[{ n: string }]>(
        'SELECT count(*) AS n FROM leads WHERE workspace_id = $1',
        [w.workspace.id],
      );
      assert.equal(Number(n), 1);
      const other = (await client.callTool({
        name: 'lead.create',
        arguments: { ...args, source: 'another-form' },
      })) as CallToolResult;
      assert.match(
        (other.content[0] as { text: string }).text,
        /^invalid_request: This idempotency key was already used with a different request\. \(field: idempotency_key\)$/,
      );
      await client.close();
    });

    it('applies the rate limit and the IP allowlist as REST does', async () => {
      const limited = await serve(testApp(t.db, { rateLimitPerMinute: 3 }));
      const { key } = await workspaceWithKey(t.db, { scopes: ['leads:read'] });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await fetch(`${limited.url}/api/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key.key}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'ping' }),
        });
        statuses.push(r.status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      await limited.close();
      const fenced = await workspaceWithKey(t.db, {
        scopes: ['leads:read'],
        allowedCidrs: ['203.0.113.0/24'],
      });
      await assert.rejects(connect(fenced.key.key), /401|Unauthorized/i);
    });

    it('audits each call with door mcp and the tool name, allowed or refused with the real reason', async () => {
      const w = await workspaceWithKey(t.db, { scopes: ['leads:read'] });
      const { client } = await connect(w.key.key);
      await client.callTool({ name: 'lead.search', arguments: {} });
      await client.callTool({
        name: 'lead.get',
        arguments: { leadId: '00000000-0000-4000-8000-000000000000' },
      });
      await client.close();
      const rows = await t.db.query<
        { door: string; action: string; outcome: string; reason: string | null }[]
      >(
        `SELECT door, action, outcome, reason FROM audit_log WHERE key_id = $1 AND action LIKE 'lead.%' ORDER BY id`,
        [w.key.id],
      );
      assert.deepEqual(
        rows.map((r) => [r.door, r.action, r.outcome]),
        [
          ['mcp', 'lead.search', 'allowed'],
          ['mcp', 'lead.get', 'refused'],
        ],
      );
      assert.match(rows[1]!.reason!, /No such lead/);
    });
  });
}
