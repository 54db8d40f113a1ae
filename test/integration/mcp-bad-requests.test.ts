import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { revokeApiKey } from '../../domain/identity/operations/key-revoke';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { intakeBody, postLead } from '../helpers/leads';
import { serve } from '../helpers/mcp';

/** Every table a request could change, but the audit log and the rate-limit counter, which it must. */
const TABLES = [
  'workspaces',
  'memberships',
  'api_keys',
  'leads',
  'lead_notes',
  'messages',
  'touches',
  'suppressions',
  'events',
  'idempotency_keys',
  'approvals',
  'connections',
];

const digest = async (db: DataSource) =>
  Promise.all(
    TABLES.map(async (table) => {
      const [row] = await db.query<{ d: string | null }[]>(
        `SELECT md5(string_agg(x::text, '|' ORDER BY x::text)) AS d FROM ${table} x`,
      );
      return `${table}:${row!.d}`;
    }),
  );

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bad-requests', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const LEGACY = { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25' };
const MODERN = { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28' };
const rpc = (id: number, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

type Case = {
  name: string;
  method?: string;
  headers: Record<string, string>;
  body?: string | ((lead: string) => string);
  /** Which key sends it: the live one, a revoked one, or none. */
  key?: 'revoked' | 'none';
  status: number;
  /** The JSON-RPC error code answered, or none (an answer without a body). */
  code?: number;
  message?: RegExp;
  /** The JSON-RPC id the error carries. */
  id?: number | null;
  audit: { action: string; outcome: 'refused' | 'allowed' };
};

/** Bad requests at the assistant endpoint: each answer exactly, nothing changed, one audit row (door mcp). */
const CASES: Case[] = [
  {
    name: 'a JSON-RPC batch of ten calls',
    headers: LEGACY,
    body: JSON.stringify(
      Array.from(
        { length: 10 },
        (_, i) => JSON.parse(rpc(i, 'tools/call', { name: 'lead.search', arguments: {} })) as unknown,
      ),
    ),
    status: 400,
    code: -32600,
    message: /batches are not supported/,
    id: null,
    audit: { action: 'batch', outcome: 'refused' },
  },
  {
    name: 'invalid JSON',
    headers: LEGACY,
    body: '{"jsonrpc": "2.0", "id": 1,',
    status: 400,
    code: -32700,
    id: null,
    audit: { action: 'POST /api/mcp', outcome: 'refused' },
  },
  {
    name: 'a message without jsonrpc',
    headers: LEGACY,
    body: JSON.stringify({ id: 3, method: 'tools/list' }),
    status: 400,
    code: -32600,
    id: 3,
    audit: { action: 'tools/list', outcome: 'refused' },
  },
  {
    name: 'params as an array',
    headers: LEGACY,
    body: rpc(4, 'tools/list', []),
    status: 400,
    code: -32600,
    id: 4,
    audit: { action: 'tools/list', outcome: 'refused' },
  },
  {
    name: 'tools/call without a tool name',
    headers: LEGACY,
    body: rpc(5, 'tools/call', { arguments: {} }),
    status: 200,
    code: -32602,
    message: /^tools\/call needs params\.name: the name of the tool to call\.$/,
    id: 5,
    audit: { action: 'tools/call', outcome: 'refused' },
  },
  {
    name: 'an unknown tool',
    headers: LEGACY,
    body: rpc(6, 'tools/call', { name: 'lead.teleport', arguments: {} }),
    status: 200,
    code: -32602,
    message: /^Unknown tool: lead\.teleport$/,
    id: 6,
    audit: { action: 'lead.teleport', outcome: 'refused' },
  },
  {
    name: 'an unknown method (2025)',
    headers: LEGACY,
    body: rpc(7, 'leads/export'),
    status: 200,
    code: -32601,
    id: 7,
    audit: { action: 'leads/export', outcome: 'refused' },
  },
  {
    name: 'an unknown method (2026)',
    headers: { ...MODERN, 'mcp-method': 'leads/export' },
    body: rpc(8, 'leads/export', { _meta: MODERN_META }),
    status: 404,
    code: -32601,
    id: 8,
    audit: { action: 'leads/export', outcome: 'refused' },
  },
  {
    name: 'subscriptions/listen (nothing here changes under a client)',
    headers: { ...MODERN, 'mcp-method': 'subscriptions/listen' },
    body: rpc(18, 'subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: MODERN_META }),
    status: 404,
    code: -32601,
    id: 18,
    audit: { action: 'subscriptions/listen', outcome: 'refused' },
  },
  {
    name: 'a notification',
    headers: LEGACY,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    status: 202,
    audit: { action: 'notifications/initialized', outcome: 'allowed' },
  },
  {
    name: 'an Accept without text/event-stream',
    headers: { ...LEGACY, accept: 'application/json' },
    body: rpc(9, 'tools/list'),
    status: 406,
    code: -32000,
    id: 9,
    audit: { action: 'tools/list', outcome: 'refused' },
  },
  {
    name: 'a 2 MB body',
    headers: LEGACY,
    body: rpc(10, 'tools/call', { name: 'lead.search', arguments: { query: 'x'.repeat(2 * 1024 * 1024) } }),
    status: 413,
    code: -32000,
    id: null,
    audit: { action: 'POST /api/mcp', outcome: 'refused' },
  },
  {
    name: 'a foreign Origin',
    headers: { ...LEGACY, origin: 'https://evil.example.com' },
    body: rpc(11, 'tools/list'),
    status: 403,
    code: -32000,
    id: null,
    audit: { action: 'POST /api/mcp', outcome: 'refused' },
  },
  {
    name: 'a revoked key',
    key: 'revoked',
    headers: LEGACY,
    body: rpc(12, 'tools/list'),
    status: 401,
    code: -32000,
    id: null,
    audit: { action: 'POST /api/mcp', outcome: 'refused' },
  },
  {
    name: 'no key',
    key: 'none',
    headers: LEGACY,
    body: rpc(13, 'tools/list'),
    status: 401,
    code: -32000,
    id: null,
    audit: { action: 'POST /api/mcp', outcome: 'refused' },
  },
  {
    name: 'a body that is not JSON by its Content-Type',
    headers: { ...LEGACY, 'content-type': 'text/plain' },
    body: rpc(14, 'tools/list'),
    status: 415,
    code: -32000,
    id: null,
    audit: { action: 'POST /api/mcp', outcome: 'refused' },
  },
  {
    name: 'a protocol version this endpoint does not serve (2024-11-05)',
    headers: { ...LEGACY, 'mcp-protocol-version': '2024-11-05' },
    body: rpc(15, 'tools/list'),
    status: 400,
    code: -32000,
    message: /Unsupported protocol version: 2024-11-05/,
    id: 15,
    audit: { action: 'tools/list', outcome: 'refused' },
  },
  {
    name: 'an Mcp-Name header that disagrees with the body',
    headers: { ...MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'lead.get' },
    body: rpc(16, 'tools/call', { name: 'lead.search', arguments: {}, _meta: MODERN_META }),
    status: 400,
    code: -32020,
    id: 16,
    audit: { action: 'tools/call', outcome: 'refused' },
  },
  {
    name: 'a lead id without its Mcp-Param-Lead-Id header',
    headers: { ...MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'lead.archive' },
    body: (lead) =>
      rpc(17, 'tools/call', { name: 'lead.archive', arguments: { leadId: lead }, _meta: MODERN_META }),
    status: 400,
    code: -32020,
    message: /Mcp-Param-Lead-Id header is missing/,
    id: 17,
    audit: { action: 'tools/call', outcome: 'refused' },
  },
  {
    name: 'GET',
    method: 'GET',
    headers: {},
    status: 405,
    code: -32000,
    id: null,
    audit: { action: 'GET /api/mcp', outcome: 'refused' },
  },
];

describe('bad requests at the assistant endpoint', () => {
  let t: TestDatabase;
  let api: Awaited<ReturnType<typeof serve>>;
  let key: string;
  let keyId: string;
  let revoked: string;
  let lead: string;

  before(async () => {
    t = await freshDatabase();
    api = await serve(testApp(t.db));
    const w = await workspaceWithKey(t.db, { scopes: ['leads:read', 'leads:write', 'business:read'] });
    key = w.key.key;
    keyId = w.key.id;
    lead = (await postLead(testApp(t.db), key, intakeBody())).body.data.id as string;
    const gone = await workspaceWithKey(t.db, { scopes: ['leads:read'] });
    await asOperator(t.db, revokeApiKey, { id: gone.key.id });
    revoked = gone.key.key;
  });
  after(async () => {
    await api.close();
    await t.drop();
  });

  const auditRows = () =>
    t.db.query<{ id: string; door: string; action: string; outcome: string; status: number }[]>(
      'SELECT id, door, action, outcome, status FROM audit_log ORDER BY id',
    );
  // The key's current window (a new minute starts a new one, and the old is dropped): its start and count.
  const window = async () => {
    const [row] = await t.db.query<{ start: Date; hits: number }[]>(
      'SELECT window_start AS start, hits FROM rate_limit_windows WHERE key_id = $1 ORDER BY window_start DESC LIMIT 1',
      [keyId],
    );
    return row;
  };
  /** Requests counted between two readings of the window: after a new minute began, all of the new window's. */
  const countedSince = (
    before: Awaited<ReturnType<typeof window>>,
    after: Awaited<ReturnType<typeof window>>,
  ) =>
    after && before && after.start.getTime() === before.start.getTime()
      ? after.hits - before.hits
      : (after?.hits ?? 0);

  for (const c of CASES) {
    it(`${c.name}: ${c.status}${c.code ? ` ${c.code}` : ''}, nothing changed, one audit row`, async () => {
      const before = await digest(t.db);
      const audited = (await auditRows()).length;
      const counted = await window();
      const bearer = c.key === 'none' ? undefined : c.key === 'revoked' ? revoked : key;
      const res = await fetch(`${api.url}/api/mcp`, {
        method: c.method ?? 'POST',
        headers: { ...c.headers, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
        ...(c.body ? { body: typeof c.body === 'string' ? c.body : c.body(lead) } : {}),
      });
      assert.equal(res.status, c.status);
      const text = await res.text();
      if (c.code === undefined) assert.equal(text, c.status === 202 ? 'Accepted' : '');
      else {
        const body = JSON.parse(text) as {
          jsonrpc: string;
          id: unknown;
          error: { code: number; message: string };
        };
        assert.equal(body.jsonrpc, '2.0');
        assert.equal(body.error.code, c.code, body.error.message);
        assert.equal(body.id, c.id, 'the request id, when it was read');
        if (c.message) assert.match(body.error.message, c.message);
        assert.equal(res.headers.get('access-control-allow-origin'), null, 'no CORS');
      }
      if (c.status === 401) assert.equal(res.headers.get('www-authenticate'), 'Bearer');
      assert.deepEqual(await digest(t.db), before, 'nothing changed');
      const rows = (await auditRows()).slice(audited);
      assert.deepEqual(
        rows.map((r) => [r.door, r.action, r.outcome, r.status]),
        [['mcp', c.audit.action, c.audit.outcome, c.status]],
        'exactly one audit row, door mcp',
      );
      if (c.key === undefined)
        assert.equal(countedSince(counted, await window()), 1, 'one request for the rate limit');
    });
  }
});
