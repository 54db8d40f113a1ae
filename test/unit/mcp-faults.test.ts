import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { DataSource } from 'typeorm';
import { classify, directToolCall } from '../../api/mcp/direct';
import { buildMcpServer, type McpCall, type McpCallContext } from '../../api/mcp/server';
import { keyActor } from '../../domain/kernel/actor';
import type { Principal } from '../../domain/kernel/permissions';
import { testServices } from '../../tooling/services';

const principal: Principal = {
  keyId: '00000000-0000-4000-8000-000000000001',
  keyName: 'k',
  keyPrefix: 'lk_live_abcd',
  environment: 'live',
  scopes: ['leads:read'],
  workspaceId: '00000000-0000-4000-8000-000000000002',
  userId: '00000000-0000-4000-8000-000000000003',
  role: 'admin',
};

/** A call's context at the assistant door over a database that fails every query with `err`. */
function failingContext(err: Error): McpCallContext & { call: McpCall } {
  const fail = async () => {
    throw err;
  };
  const db = { query: fail, manager: { query: fail }, transaction: fail } as unknown as DataSource;
  return {
    services: testServices(db),
    principal,
    actor: keyActor(principal, { door: 'mcp', requestId: 'req_test' }),
    naming: 'dotted',
    call: {},
  };
}

/** The assistant door's SDK server over a database that fails every query with `err`. */
async function callWithFailingDatabase(err: Error) {
  const c = failingContext(err);
  const { call } = c;
  const server = buildMcpServer(c, 'legacy', ['2025-11-25']);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(b);
  try {
    const result = await client.callTool({ name: 'lead.search', arguments: {} }).catch((e: Error) => e);
    return { result, call };
  } finally {
    await client.close();
    await server.close();
  }
}

describe('faults at the assistant door', () => {
  it('tells the model to retry when the database is out, as REST answers 503', async () => {
    const { result, call } = await callWithFailingDatabase(new Error('Query read timeout'));
    assert.ok(!(result instanceof Error));
    assert.equal(result.isError, true);
    const [content] = result.content as { text: string }[];
    assert.match(content!.text, /^unavailable: /);
    assert.deepEqual(call, {
      tool: 'lead.search',
      outcome: 'failed',
      reason: 'Error: Query read timeout',
      // For the metrics: a database error of kind unavailable, refused as unavailable.
      dbError: 'unavailable',
      code: 'unavailable',
    });
  });

  it('answers any other fault with an internal error naming the request, never its text', async () => {
    const { result, call } = await callWithFailingDatabase(
      new Error('relation "secret_table" does not exist'),
    );
    assert.ok(result instanceof Error);
    assert.match(result.message, /request id req_test/);
    assert.doesNotMatch(result.message, /secret_table/);
    assert.equal(call.outcome, 'failed');
    assert.match(call.reason!, /secret_table/, 'the audit row keeps the real reason');
  });

  it('answers the same on the direct path (a plain 2026-07-28 call)', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: {
        name: 'lead.search',
        arguments: {},
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    };
    const headers = {
      contentType: 'application/json',
      protocolVersion: '2026-07-28',
      method: 'tools/call',
      name: 'lead.search',
    };
    const direct = (err: Error) => {
      const c = failingContext(err);
      return directToolCall(c, classify(body, headers), headers, ['2026-07-28']).then((a) => ({ a, c }));
    };

    const out = await direct(new Error('Query read timeout'));
    const result = (JSON.parse(out.a!.text) as { result: { isError: boolean; content: { text: string }[] } })
      .result;
    assert.equal(result.isError, true);
    assert.match(result.content[0]!.text, /^unavailable: /);
    assert.equal(out.c.call.code, 'unavailable');

    const fault = await direct(new Error('relation "secret_table" does not exist'));
    const answer = JSON.parse(fault.a!.text) as { id: number; error: { code: number; message: string } };
    assert.equal(answer.id, 9);
    assert.equal(answer.error.code, -32603);
    assert.deepEqual(fault.a!.error, answer.error);
    assert.match(answer.error.message, /request id req_test/);
    assert.doesNotMatch(fault.a!.text, /secret_table/);
    assert.equal(fault.c.call.outcome, 'failed');
    assert.match(fault.c.call.reason!, /secret_table/);
  });
});
