import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { approveApproval } from '../../domain/approvals/operations/approvals';
import type { ApprovalView } from '../../domain/approvals/rows';
import { approvalGate } from '../../domain/approvals/temporal';
import { addConnection } from '../../domain/connections/operations/connections';
import { revokeApiKey } from '../../domain/identity/operations/keys';
import { addMember } from '../../domain/identity/operations/members';
import { suppressContact } from '../../domain/leads/operations/suppress-contact';
import { repoRoot } from '../../tooling/paths';
import { waitFor } from '../../tooling/processes';
import { testApp } from '../helpers/api';
import { workspaceWithKey } from '../helpers/fixtures';
import { intakeBody, postLead } from '../helpers/leads';
import { mcpClient, serve } from '../helpers/mcp';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

/** The whole path: an assistant's call over HTTP, the approval workflow on the Temporal dev server, an admin's decision. */
describe('the assistant endpoint with the real worker: gated calls, replies, revocation', () => {
  let s: WebhookStack;
  let api: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    s = await startWebhookStack();
    api = await serve(
      testApp(s.db, {
        approvals: approvalGate(s.db, () => Promise.resolve(s.client), s.config.temporalTaskQueue),
      }),
    );
  });
  after(async () => {
    await api?.close();
    await s?.stop();
  });

  it('parks connection.disconnect as approval:<id>, findable in Temporal, and runs it once an admin approves', async () => {
    const w = await workspaceWithKey(s.db, { role: 'admin', scopes: ['business:read', 'business:write'] });
    const workspaceId = w.workspace.id;
    await s.run(addMember, { email: 'boss@example.com', role: 'owner' }, { workspaceId });
    const connection = await s.run(addConnection, { system: 'google_calendar' }, { workspaceId });
    const { client } = await mcpClient(api.url, w.key.key);
    const call = () =>
      client.callTool({ name: 'connection.disconnect', arguments: { connectionId: connection.id } });
    const parked = (await call()) as CallToolResult;
    assert.equal(parked.isError, undefined);
    const pending = parked.structuredContent as {
      status: string;
      approval_id: string;
      summary: string;
      expires_at: string;
    };
    assert.equal(pending.status, 'pending_approval');
    assert.equal(pending.summary, `Disconnect Google Calendar from ${w.workspace.name}`);
    assert.match((parked.content[0] as { text: string }).text, /^Nothing has happened yet\./);
    const again = (await call()) as CallToolResult;
    assert.equal((again.structuredContent as { approval_id: string }).approval_id, pending.approval_id);

    const handle = s.client.workflow.getHandle(`approval:${pending.approval_id}`);
    assert.equal((await handle.describe()).status.name, 'RUNNING');
    await waitFor(
      'the request to be listed by its search attributes',
      async () => {
        for await (const wf of s.client.workflow.list({
          query: `WorkspaceId = "${workspaceId}" AND ApprovalOperation = "connection.disconnect" AND ApprovalStatus = "PENDING"`,
        }))
          if (wf.workflowId === `approval:${pending.approval_id}`) return true;
        return undefined;
      },
      20_000,
      200,
    );

    const outcome = (await s.run(approveApproval, {
      id: pending.approval_id,
      as: 'boss@example.com',
    })) as ApprovalView;
    assert.equal(outcome.status, 'EXECUTED');
    const mine = (await client.callTool({
      name: 'approval.get',
      arguments: { approvalId: pending.approval_id },
    })) as CallToolResult;
    assert.equal((mine.structuredContent as { status: string }).status, 'EXECUTED');
    const listed = (await client.callTool({ name: 'connection.list', arguments: {} })) as CallToolResult;
    assert.deepEqual(
      (listed.structuredContent as { data: { status: string }[] }).data.map((c) => c.status),
      ['DISCONNECTED'],
    );
    await client.close();
  });

  /** `npm run -s admin -- ...` against this stack; asynchronous, since the worker runs in this process. */
  const admin = (...args: string[]) =>
    new Promise<{ code: number | null; json: unknown; stderr: string }>((resolve) => {
      const child = spawn('npm', ['run', '-s', 'admin', '--', ...args], {
        cwd: repoRoot(),
        env: {
          ...process.env,
          DATABASE_URL: s.t.url,
          TEMPORAL_ADDRESS: s.config.temporalAddress,
          NODE_ENV: 'test',
        },
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('exit', (code) => {
        const stderr = err
          .split('\n')
          .filter((l) => l && !l.startsWith('npm warn'))
          .join('\n');
        resolve({ code, json: code === 0 ? (JSON.parse(out) as unknown) : undefined, stderr });
      });
    });

  it('lets an operator connect a system, list pending requests and reject one from the admin tool', async () => {
    const w = await workspaceWithKey(s.db, { role: 'admin', scopes: ['business:read', 'business:write'] });
    const workspaceId = w.workspace.id;
    const added = await admin('connection', 'add', '--workspace', workspaceId, '--system', 'HubSpot');
    assert.equal(added.code, 0, added.stderr);
    const connectionId = (added.json as { id: string }).id;
    const { client } = await mcpClient(api.url, w.key.key);
    const parked = (await client.callTool({
      name: 'connection.disconnect',
      arguments: { connectionId },
    })) as CallToolResult;
    const approvalId = (parked.structuredContent as { approval_id: string }).approval_id;
    await client.close();
    const listed = await admin('approval', 'list', '--workspace', workspaceId, '--status', 'PENDING');
    assert.equal(listed.code, 0, listed.stderr);
    const rows = listed.json as {
      id: string;
      summary: string;
      requested_by: { key_id: string };
      decided_by: null;
    }[];
    assert.deepEqual(
      rows.map((r) => [r.id, r.summary, r.requested_by.key_id, r.decided_by]),
      [[approvalId, `Disconnect HubSpot from ${w.workspace.name}`, w.key.id, null]],
    );
    const refused = await admin('approval', 'approve', '--id', approvalId, '--as', 'nobody@example.com');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^error: nobody@example.com may not decide this request/);
    const rejected = await admin(
      'approval',
      'reject',
      '--id',
      approvalId,
      '--as',
      w.email,
      '--reason',
      'Still in use',
    );
    assert.equal(rejected.code, 0, rejected.stderr);
    assert.deepEqual(
      [(rejected.json as { status: string }).status, (rejected.json as { reason: string }).reason],
      ['REJECTED', 'Still in use'],
    );
    const late = await admin('approval', 'approve', '--id', approvalId, '--as', w.email);
    assert.match(late.stderr, /no longer waiting for a decision: it is REJECTED/);
  });

  it('replies through the channel provider, refuses a suppressed contact, and stops at once when the key is revoked', async () => {
    const w = await workspaceWithKey(s.db, { role: 'member', scopes: ['leads:read', 'leads:write'] });
    const lead = (await postLead(testApp(s.db), w.key.key, intakeBody({ message: 'Call me?' }))).body
      .data as {
      id: string;
      email: string;
    };
    const { client } = await mcpClient(api.url, w.key.key);
    const reply = (await client.callTool({
      name: 'conversation.reply',
      arguments: { leadId: lead.id, channel: 'email', body: 'Happy to call tomorrow at 10.' },
    })) as CallToolResult;
    assert.equal((reply.structuredContent as { status: string; direction: string }).status, 'sent');
    const threads = (await client.callTool({
      name: 'conversation.list',
      arguments: { leadId: lead.id },
    })) as CallToolResult;
    assert.deepEqual(
      (threads.structuredContent as { data: { channel: string; messages: number }[] }).data.map((t) => [
        t.channel,
        t.messages,
      ]),
      [
        ['email', 1],
        ['form', 1],
      ],
    );
    await s.run(
      suppressContact,
      { address: lead.email, channel: 'email', reason: 'unsubscribed' },
      { workspaceId: w.workspace.id },
    );
    const refused = (await client.callTool({
      name: 'conversation.reply',
      arguments: { leadId: lead.id, channel: 'email', body: 'One more thing...' },
    })) as CallToolResult;
    assert.equal(refused.isError, true);
    assert.match(
      (refused.content[0] as { text: string }).text,
      /^suppressed: This contact opted out of email/,
    );

    await s.run(revokeApiKey, { id: w.key.id });
    await assert.rejects(
      client.callTool({ name: 'lead.search', arguments: {} }),
      /401|Unauthorized|unauthorized/i,
    );
  });
});
