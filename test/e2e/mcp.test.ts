import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { suppressContact } from '../../domain/leads/operations/contact-suppress';
import type { Role, Scope } from '../../domain/kernel/permissions';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { eventsFor, intakeBody, postLead } from '../helpers/leads';
import { MCP_VERSIONS, mcpClient, serve, structured, TASKS_EXTENSION, textOf } from '../helpers/mcp';

const LEAD_READ_TOOLS = [
  'appointment.get',
  'appointment.list',
  'conversation.get',
  'conversation.list',
  'lead.get',
  'lead.search',
];
const LEAD_WRITE_TOOLS = [
  'appointment.book',
  'appointment.cancel',
  'appointment.confirm',
  'appointment.decline',
  'appointment.mark_no_show',
  'conversation.reply',
  'lead.add_note',
  'lead.archive',
  'lead.create',
  'lead.set_status',
  'lead.update',
];
const CAMPAIGN_READ_TOOLS = ['campaign.get', 'campaign.list', 'campaign.preview'];
const CAMPAIGN_WRITE_TOOLS = [
  'campaign.create',
  'campaign.launch',
  'campaign.pause',
  'campaign.resume',
  'campaign.send',
  'campaign.update',
];
const PROSPECT_READ_TOOLS = ['prospect.get', 'prospect.list'];
const PROSPECT_WRITE_TOOLS = ['prospect.approve', 'prospect.reject', 'prospect.start_sourcing'];
const AGENT_READ_TOOLS = ['agent.drafts', 'agent.get', 'agent.list', 'agent.runs'];
const AGENT_WRITE_TOOLS = [
  'agent.configure',
  'agent.create',
  'agent.pause',
  'agent.run_now',
  'agent.start',
  'agent.stop',
];
const BUSINESS_READ_TOOLS = [
  'approval.cancel',
  'approval.get',
  'approval.list',
  'connection.list',
  'workspace.get',
];

describe('the assistant endpoint, for a dual-era client that probes server/discover first', () => {
  it('is served the 2026-07-28 way, with the revisions on offer', async () => {
    const t = await freshDatabase();
    const api = await serve(testApp(t.db));
    try {
      const { key } = await workspaceWithKey(t.db, { scopes: ['leads:read'] });
      const transport = new StreamableHTTPClientTransport(new URL(`${api.url}/api/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key.key}` } },
      });
      const client = new Client(
        { name: 'dual-era', version: '1.0.0' },
        { versionNegotiation: { mode: 'auto' } },
      );
      await client.connect(transport);
      assert.equal(client.getProtocolEra(), 'modern');
      assert.equal((await client.listTools()).tools.length, LEAD_READ_TOOLS.length);
      await client.close();
    } finally {
      await api.close();
      await t.drop();
    }
  });
});

for (const protocolVersion of MCP_VERSIONS) {
  describe(`the assistant endpoint, for the official TypeScript client at ${protocolVersion}`, () => {
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

    it('connects at that revision: a handshake for 2025 clients, server/discover for 2026 ones', async () => {
      const { client } = await connect(await keyWith(['leads:read']));
      assert.equal(client.getServerVersion()?.name, 'lead-service');
      if (protocolVersion === '2026-07-28') {
        assert.equal(client.getProtocolEra(), 'modern');
        assert.deepEqual(client.getServerCapabilities()?.extensions, { [TASKS_EXTENSION]: {} });
      } else {
        assert.equal(client.getProtocolEra(), 'legacy');
        assert.deepEqual(await client.ping(), {});
        assert.equal(client.getServerCapabilities()?.extensions, undefined, 'tasks are a 2026 extension');
      }
      assert.match(client.getInstructions() ?? '', /approval\.get/);
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
      assert.deepEqual(await names(['campaigns:read']), CAMPAIGN_READ_TOOLS);
      assert.deepEqual(
        await names(['campaigns:read', 'campaigns:write'], 'member'),
        [...CAMPAIGN_READ_TOOLS, ...CAMPAIGN_WRITE_TOOLS].sort(),
      );
      assert.deepEqual(await names(['campaigns:write'], 'viewer'), [], 'a viewer cannot change campaigns');
      assert.deepEqual(await names(['analytics:read'], 'viewer'), ['analytics.summary']);
      assert.deepEqual(await names(['prospects:read'], 'viewer'), PROSPECT_READ_TOOLS);
      assert.deepEqual(
        await names(['prospects:read', 'prospects:write'], 'member'),
        [...PROSPECT_READ_TOOLS, ...PROSPECT_WRITE_TOOLS].sort(),
        'prospect.import reads a server file: the operator only',
      );
      assert.deepEqual(await names(['agents:read'], 'viewer'), AGENT_READ_TOOLS);
      assert.deepEqual(
        await names(['agents:read', 'agents:write']),
        [...AGENT_READ_TOOLS, ...AGENT_WRITE_TOOLS].sort(),
      );
      assert.deepEqual(
        await names(['agents:read', 'agents:write'], 'member'),
        AGENT_READ_TOOLS,
        'configuring agents needs an admin',
      );
    });

    it('describes each tool for a model; with tool_names=underscore every text names tools that way', async () => {
      const key = await keyWith(['leads:read', 'leads:write', 'business:read', 'business:write']);
      const { client } = await connect(key);
      const { tools } = await client.listTools();
      const setStatus = tools.find((x) => x.name === 'lead.set_status')!;
      assert.equal(setStatus.title, "Set a lead's status");
      assert.deepEqual(Object.keys(setStatus.inputSchema.properties!).sort(), ['leadId', 'status']);
      assert.deepEqual(setStatus.inputSchema.required, ['leadId', 'status']);
      assert.equal(
        (setStatus.inputSchema.properties!.leadId as Record<string, unknown>)['x-mcp-header'],
        'Lead-Id',
        'the lead id is mirrored into Mcp-Param-Lead-Id (SEP-2243)',
      );
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
      const reply = tools.find((x) => x.name === 'conversation.reply')!;
      assert.deepEqual(
        (reply.inputSchema.properties!.channel as { enum: string[] }).enum,
        ['email', 'sms', 'whatsapp'],
        'only channels a message can be sent on',
      );
      for (const tool of tools)
        assert.ok(tool.name.length <= 64 && tool.description && tool.title, tool.name);
      await client.close();

      const underscored = await connect(key, '?tool_names=underscore');
      const listed = (await underscored.client.listTools()).tools;
      const names = listed.map((x) => x.name);
      assert.deepEqual(
        names,
        tools.map((x) => x.name.replace('.', '_')),
      );
      assert.ok(names.every((n) => /^[a-zA-Z0-9_-]{1,64}$/.test(n)));
      const dotted = /\b(lead|conversation|connection|approval|workspace)\.[a-z_]+\b/;
      for (const tool of listed) assert.doesNotMatch(tool.description ?? '', dotted, tool.name);
      assert.doesNotMatch(underscored.client.getInstructions() ?? '', dotted);
      assert.match(
        listed.find((x) => x.name === 'connection_disconnect')!.description!,
        /follow with approval_get/,
      );
      await underscored.client.close();
    });

    it('lead.set_status changes the lead and emits lead.status_changed, by either name', async () => {
      const w = await workspaceWithKey(t.db, { scopes: ['leads:read', 'leads:write'] });
      const lead = (await postLead(testApp(t.db), w.key.key, intakeBody())).body.data as { id: string };
      const { client, call } = await connect(w.key.key);
      const moved = await call('lead.set_status', { leadId: lead.id, status: 'CONTACTED' });
      assert.equal(moved.isError, undefined);
      assert.equal(structured<{ lead: { status: string } }>(moved).lead.status, 'CONTACTED');
      const again = await call('lead_set_status', { leadId: lead.id, status: 'RESPONDED' });
      assert.equal(structured<{ lead: { status: string } }>(again).lead.status, 'RESPONDED');
      const changes = (await eventsFor(t.db, lead.id)).filter((e) => e.type === 'lead.status_changed');
      assert.deepEqual(
        changes.map((e) => e.data.status),
        ['CONTACTED', 'RESPONDED'],
      );
      await client.close();
    });

    it('takes arguments as JSON types: needs_attention a boolean, limit an integer', async () => {
      const w = await workspaceWithKey(t.db, { scopes: ['leads:read', 'leads:write'] });
      const app = testApp(t.db);
      await postLead(app, w.key.key, intakeBody({ message: 'Call me?' }));
      await postLead(app, w.key.key, intakeBody());
      await postLead(app, w.key.key, intakeBody());
      const { client, call } = await connect(w.key.key);
      const waiting = await call('lead.search', { needs_attention: true });
      assert.equal(structured<{ count: number }>(waiting).count, 1);
      const quiet = await call('lead.search', { needs_attention: false, limit: 1 });
      assert.equal(structured<{ count: number }>(quiet).count, 1);
      for (const [args, field] of [
        [{ needs_attention: 'true' }, 'needs_attention'],
        [{ limit: '5' }, 'limit'],
        [{ limit: 0 }, 'limit'],
      ] as const) {
        const r = await call('lead.search', args);
        assert.equal(r.isError, true, JSON.stringify(args));
        assert.match(textOf(r), new RegExp(`^invalid_request: .*\\(field: ${field}\\)$`));
      }
      await client.close();
    });

    it('answers protocol misuse with JSON-RPC errors and domain refusals with tool errors', async () => {
      const w = await workspaceWithKey(t.db, { scopes: ['leads:read', 'leads:write'] });
      const lead = (await postLead(testApp(t.db), w.key.key, intakeBody())).body.data as { id: string };
      const { client, call } = await connect(w.key.key);
      const protocolError = async (name: string) => {
        try {
          await client.callTool({ name, arguments: {} });
        } catch (err) {
          assert.ok(err instanceof ProtocolError, String(err));
          return { code: err.code, message: err.message.replace(name, '<name>') };
        }
        assert.fail(`${name} was accepted`);
      };
      const unknown = await protocolError('lead.teleport');
      assert.equal(unknown.code, -32602);
      assert.match(unknown.message, /^(MCP error -32602: )?Unknown tool: <name>$/, 'said once');
      assert.deepEqual(
        await protocolError('connection.disconnect'),
        unknown,
        'an unlisted tool answers as an unknown one',
      );
      const bad = await call('lead.get', { leadId: 'nope' });
      assert.equal(bad.isError, true);
      assert.equal(textOf(bad), 'invalid_request: leadId must be a UUID (field: leadId)');
      const refused = await call('lead.set_status', { leadId: lead.id, status: 'WON' });
      assert.equal(refused.isError, true);
      assert.equal(textOf(refused), 'conflict: A lead cannot move from NEW to WON.');
      const missing = await call('lead.get', { leadId: '00000000-0000-4000-8000-000000000000' });
      assert.match(textOf(missing), /^not_found:/);
      for (const field of ['model', 'temperature', 'max_tokens', 'system_prompt']) {
        const r = await call('lead.search', { [field]: 'x' });
        assert.equal(r.isError, true, field);
        assert.match(textOf(r), new RegExp(`^invalid_request: .*\\(field: ${field}\\)$`));
      }
      await client.close();
    });

    it('never crosses answers between two keys calling at once', async () => {
      const a = await workspaceWithKey(t.db, { scopes: ['business:read'] });
      const b = await workspaceWithKey(t.db, { scopes: ['business:read'] });
      const [ca, cb] = [await connect(a.key.key), await connect(b.key.key)];
      const calls = Array.from({ length: 20 }, (_, i) => {
        const [who, expected] = i % 2 ? [cb, b.workspace.id] : [ca, a.workspace.id];
        return who
          .call('workspace.get')
          .then((r) => structured<{ workspace: { id: string } }>(r).workspace.id === expected);
      });
      assert.deepEqual(await Promise.all(calls), Array(20).fill(true));
      await ca.client.close();
      await cb.client.close();
    });

    it('lead.create is idempotent by the key the tool takes; a suppressed contact is the REST 409 as a tool error', async () => {
      const w = await workspaceWithKey(t.db, { scopes: ['leads:read', 'leads:write'] });
      const { client, call } = await connect(w.key.key);
      const args = { ...intakeBody(), idempotency_key: `form-${protocolVersion}-1` };
      const first = await call('lead.create', args);
      const second = await call('lead.create', args);
      assert.equal(structured<{ outcome: string }>(first).outcome, 'CREATED');
      assert.deepEqual(second.structuredContent, first.structuredContent, 'the first answer, replayed');
      const [{ n }] = await t.db.query<[{ n: string }]>(
        'SELECT count(*) AS n FROM leads WHERE workspace_id = $1',
        [w.workspace.id],
      );
      assert.equal(Number(n), 1);
      const other = await call('lead.create', { ...args, source: 'another-form' });
      assert.equal(
        textOf(other),
        'invalid_request: This idempotency key was already used with a different request. (field: idempotency_key)',
      );

      await asOperator(
        t.db,
        suppressContact,
        { address: 'gone@example.com' },
        { workspaceId: w.workspace.id },
      );
      const blocked = {
        ...intakeBody({ email: 'gone@example.com' }),
        idempotency_key: `blocked-${protocolVersion}`,
      };
      for (const attempt of ['first', 'replayed']) {
        const r = await call('lead.create', blocked);
        assert.equal(r.isError, true, attempt);
        assert.equal(
          textOf(r),
          'suppressed: This contact is suppressed (opted out or blocked); nothing was stored.',
          attempt,
        );
      }
      const rest = await postLead(testApp(t.db), w.key.key, intakeBody({ email: 'gone@example.com' }));
      assert.equal(rest.status, 409);
      assert.equal(rest.body.error.code, 'suppressed', 'the same code as the REST door');
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
            'mcp-protocol-version': '2025-11-25',
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
      await assert.rejects(connect(fenced.key.key), /401|Unauthorized|authoriz/i);
    });

    it('audits each call with door mcp and the tool name, allowed or refused with the real reason', async () => {
      const w = await workspaceWithKey(t.db, { scopes: ['leads:read'] });
      const { client, call } = await connect(w.key.key);
      await call('lead.search');
      await call('lead.get', { leadId: '00000000-0000-4000-8000-000000000000' });
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
