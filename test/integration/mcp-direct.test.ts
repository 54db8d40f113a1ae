import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Server } from '@modelcontextprotocol/server';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { workspaceWithKey } from '../helpers/fixtures';
import { intakeBody, postLead } from '../helpers/leads';
import { rpcResponse, serve } from '../helpers/mcp';

const MISSING = '00000000-0000-4000-8000-000000000000';

type Call = { name: string; arguments?: Record<string, unknown>; headers?: Record<string, string> };

/**
 * The assistant door answers a plain 2026-07-28 tools/call without the SDK's per-request server
 * (api/mcp/direct.ts). What a caller sees must be exactly what the SDK answers: each call is sent as a
 * plain client sends it and as a tasks client does (which the SDK serves), and the two answers must
 * match byte for byte, status and headers included (bar the request's own id and rate-limit count).
 */
describe('the assistant door: a plain tools/call answers exactly what the SDK answers', () => {
  let t: TestDatabase;
  let api: Awaited<ReturnType<typeof serve>>;
  let key: string;
  let lead: string;
  let servers = 0;
  let restore = () => undefined as unknown;

  before(async () => {
    t = await freshDatabase();
    api = await serve(testApp(t.db));
    key = (await workspaceWithKey(t.db, { scopes: ['leads:read', 'leads:write', 'business:read'] })).key.key;
    lead = (await postLead(testApp(t.db), key, intakeBody())).body.data.id as string;
    // Counts the SDK servers the door connects, so each answer says which path made it.
    const connect = Object.getOwnPropertyDescriptor(Server.prototype, 'connect')!;
    restore = () => Object.defineProperty(Server.prototype, 'connect', connect);
    Object.defineProperty(Server.prototype, 'connect', {
      ...connect,
      value: function (this: Server, ...args: unknown[]) {
        servers++;
        return (connect.value as (...a: unknown[]) => Promise<void>).apply(this, args);
      },
    });
  });
  after(async () => {
    restore();
    await api.close();
    await t.drop();
  });

  const send = async (call: Call, tasks: boolean, id: number | string = 7) => {
    const before = servers;
    const params = { name: call.name, ...(call.arguments && { arguments: call.arguments }) };
    const res = await rpcResponse(api.url, key, 'tools/call', params, { tasks, id, headers: call.headers });
    const headers = Object.fromEntries(
      [...res.headers].filter(([h]) => !['date', 'request-id', 'ratelimit', 'content-length'].includes(h)),
    );
    return { status: res.status, headers, body: await res.text(), viaSdk: servers > before };
  };

  const cases: [string, () => Call][] = [
    ['a lead read', () => ({ name: 'lead.get', arguments: { leadId: lead } })],
    ['a lead not in the workspace', () => ({ name: 'lead.get', arguments: { leadId: MISSING } })],
    ['a bad argument, named', () => ({ name: 'lead.get', arguments: { leadId: 'nope' } })],
    ['a search', () => ({ name: 'lead.search', arguments: { query: 'Lima', limit: 5 } })],
    ['a search without arguments', () => ({ name: 'lead.search' })],
    ['an argument out of bounds', () => ({ name: 'lead.search', arguments: { limit: 100000 } })],
    ['an unknown argument', () => ({ name: 'lead.search', arguments: { teleport: true } })],
    ['the workspace', () => ({ name: 'workspace.get', arguments: {} })],
  ];

  for (const [what, call] of cases)
    it(`${what}: the same status, headers and body on both paths`, async () => {
      const plain = await send(call(), false);
      const sdk = await send(call(), true);
      assert.equal(plain.viaSdk, false, 'the plain call is answered without an SDK server');
      assert.equal(sdk.viaSdk, true, 'the tasks client is answered by the SDK');
      assert.deepEqual(plain, { ...sdk, viaSdk: false });
      assert.equal(plain.headers['content-type'], 'application/json');
    });

  it('a lead read answers the lead', async () => {
    const plain = await send({ name: 'lead.get', arguments: { leadId: lead } }, false);
    const { result } = JSON.parse(plain.body) as { result: { structuredContent: { data: { id: string } } } };
    assert.equal(result.structuredContent.data.id, lead);
  });

  it('a string id is echoed as sent', async () => {
    const c: Call = { name: 'workspace.get', arguments: {} };
    const plain = await send(c, false, 'call-1');
    assert.equal(plain.viaSdk, false);
    assert.equal((JSON.parse(plain.body) as { id: unknown }).id, 'call-1');
    assert.deepEqual(plain, { ...(await send(c, true, 'call-1')), viaSdk: false });
  });

  const sdkOnly: [string, Call, { status: number; viaSdk: boolean; answer: RegExp }][] = [
    [
      'a tool this key is not offered',
      { name: 'campaign.create', arguments: {} },
      { status: 200, viaSdk: true, answer: /"code":-32602,"message":"Unknown tool: campaign.create"/ },
    ],
    [
      'an unknown tool',
      { name: 'lead.teleport', arguments: {} },
      { status: 200, viaSdk: true, answer: /"code":-32602,"message":"Unknown tool: lead.teleport"/ },
    ],
    [
      'an Mcp-Name in its base64 form',
      { name: 'lead.search', headers: { 'mcp-name': '=?base64?bGVhZC5zZWFyY2g=?=' } },
      { status: 200, viaSdk: true, answer: /"resultType":"complete"/ },
    ],
    [
      'an Mcp-Name that disagrees with the body',
      { name: 'lead.search', headers: { 'mcp-name': 'lead.get' } },
      // Refused by the SDK's header rung, before it builds a server.
      { status: 400, viaSdk: false, answer: /"code":-32020/ },
    ],
  ];
  for (const [what, call, expected] of sdkOnly)
    it(`${what}: left to the SDK, which answers it`, async () => {
      const res = await send(call, false);
      assert.equal(res.status, expected.status);
      assert.equal(res.viaSdk, expected.viaSdk);
      assert.match(res.body, expected.answer);
    });
});
