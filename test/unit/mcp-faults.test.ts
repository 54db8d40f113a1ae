import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { DataSource } from 'typeorm';
import { buildMcpServer, type McpCall } from '../../api/mcp/server';
import { keyActor } from '../../domain/kernel/actor';
import type { Principal } from '../../domain/kernel/permissions';

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

/** The assistant door over a database that fails every query with `err`. */
async function callWithFailingDatabase(err: Error) {
  const fail = async () => {
    throw err;
  };
  const db = { query: fail, manager: { query: fail }, transaction: fail } as unknown as DataSource;
  const call: McpCall = {};
  const server = buildMcpServer(
    {
      services: { db },
      principal,
      actor: keyActor(principal, { door: 'mcp', requestId: 'req_test' }),
      naming: 'dotted',
      call,
    },
    'legacy',
    ['2025-11-25'],
  );
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
});
