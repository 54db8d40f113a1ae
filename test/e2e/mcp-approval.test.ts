import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { approveApproval } from '../../domain/approvals/operations/approve';
import type { ApprovalView } from '../../domain/approvals/views';
import { approvalGate } from '../../infra/temporal/approvals';
import { addConnection } from '../../domain/connections/operations/add';
import { revokeApiKey } from '../../domain/identity/operations/key-revoke';
import { addMember } from '../../domain/identity/operations/member-add';
import { suppressContact } from '../../domain/leads/operations/contact-suppress';
import { repoRoot } from '../../tooling/paths';
import { SERVICE_DEFAULTS } from '../../tooling/services';
import { waitFor } from '../../tooling/processes';
import { testApp } from '../helpers/api';
import { workspaceWithKey } from '../helpers/fixtures';
import { intakeBody, postLead } from '../helpers/leads';
import { mcpClient, rpc, serve, structured, textOf, type TaskAnswer } from '../helpers/mcp';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

/** The whole path: an assistant's call over HTTP, the approval workflow on the Temporal dev server, an admin's decision. */
describe('the assistant endpoint with the real worker: gated calls, replies, revocation', () => {
  let s: WebhookStack;
  let api: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    s = await startWebhookStack();
    api = await serve(
      testApp(s.db, {
        ports: {
          approvals: approvalGate(
            s.db,
            () => Promise.resolve(s.client),
            s.config.temporalTaskQueue,
            s.config,
          ),
        },
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
    const { client, call } = await mcpClient(api.url, w.key.key, { protocolVersion: '2025-11-25' });
    const disconnect = () => call('connection.disconnect', { connectionId: connection.id });
    const parked = await disconnect();
    assert.equal(parked.isError, undefined);
    const pending = structured<{
      status: string;
      approval_id: string;
      summary: string;
      expires_at: string;
      approval_url: string;
    }>(parked);
    assert.equal(pending.status, 'pending_approval');
    assert.equal(pending.summary, `Disconnect Google Calendar from ${w.workspace.name}`);
    // The request's page in the console, for the assistant to hand its user; it grants nothing unsigned-in.
    const page = `${SERVICE_DEFAULTS.publicUrl}/app/w/${workspaceId}/approvals/${pending.approval_id}`;
    assert.deepEqual(Object.keys(pending).sort(), [
      'approval_id',
      'approval_url',
      'expires_at',
      'status',
      'summary',
    ]);
    assert.equal(pending.approval_url, page);
    assert.match(textOf(parked), /^Nothing has happened yet\./);
    assert.ok(textOf(parked).includes(`they decide at ${page} (give your user this link)`), textOf(parked));
    const again = await disconnect();
    assert.equal(structured<{ approval_id: string }>(again).approval_id, pending.approval_id);

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
    const mine = await call('approval.get', { approvalId: pending.approval_id });
    assert.equal(structured<{ status: string }>(mine).status, 'EXECUTED');
    const listed = await call('connection.list');
    assert.deepEqual(
      structured<{ data: { status: string }[] }>(listed).data.map((c) => c.status),
      ['DISCONNECTED'],
    );
    await client.close();
  });

  it('gives a 2026-07-28 client that declares the tasks extension a task: working, then completed with the tool’s own answer once approved', async () => {
    const w = await workspaceWithKey(s.db, { role: 'admin', scopes: ['business:read', 'business:write'] });
    const workspaceId = w.workspace.id;
    await s.run(addMember, { email: 'chief@example.com', role: 'owner' }, { workspaceId });
    const connection = await s.run(addConnection, { system: 'hubspot' }, { workspaceId });
    const created = (
      await rpc(
        api.url,
        w.key.key,
        'tools/call',
        { name: 'connection.disconnect', arguments: { connectionId: connection.id } },
        { tasks: true },
      )
    ).result as TaskAnswer;
    assert.equal(created.resultType, 'task');
    assert.equal(created.status, 'working');
    assert.match(created.statusMessage, /Disconnect HubSpot from/);
    assert.ok(created.ttlMs >= 7 * 86_400_000, 'the TTL covers the 7-day wait');
    assert.equal(created.pollIntervalMs, 30_000);
    const taskGet = async () =>
      (await rpc(api.url, w.key.key, 'tasks/get', { taskId: created.taskId }, { tasks: true }))
        .result as TaskAnswer;
    assert.equal((await taskGet()).status, 'working');
    const outcome = (await s.run(approveApproval, {
      id: created.taskId,
      as: 'chief@example.com',
    })) as ApprovalView;
    assert.equal(outcome.status, 'EXECUTED');
    const done = await taskGet();
    assert.equal(done.status, 'completed');
    assert.equal(
      (done.result!.structuredContent as { status: string }).status,
      'DISCONNECTED',
      'what the tool answers once run',
    );
  });

  /** `npm run -s admin -- ...` against this stack; asynchronous, since the worker runs in this process. */
  const admin = (...args: string[]) =>
    new Promise<{ code: number | null; json: unknown; text: string; stderr: string }>((resolve) => {
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
        // Less npm's warnings and the launcher's notes (a rebuild of dist/ when a source changed).
        const stderr = err
          .split('\n')
          .filter((l) => l && !l.startsWith('npm warn') && !l.startsWith('admin: '))
          .join('\n');
        // `approval show` prints text for a person; every other command prints JSON.
        const json = code === 0 && /^[[{]/.test(out) ? (JSON.parse(out) as unknown) : undefined;
        resolve({ code, json, text: out, stderr });
      });
    });

  it('lets an operator connect a system, list pending requests and reject one from the admin tool', async () => {
    const w = await workspaceWithKey(s.db, { role: 'admin', scopes: ['business:read', 'business:write'] });
    const workspaceId = w.workspace.id;
    const added = await admin('connection', 'add', '--workspace', workspaceId, '--system', 'hubspot');
    assert.equal(added.code, 0, added.stderr);
    const connectionId = (added.json as { id: string }).id;
    const { client, call } = await mcpClient(api.url, w.key.key, { protocolVersion: '2025-06-18' });
    const parked = await call('connection.disconnect', { connectionId });
    const approvalId = structured<{ approval_id: string }>(parked).approval_id;
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
    const unknown = await admin('approval', 'approve', '--id', randomUUID(), '--as', w.email);
    assert.match(
      unknown.stderr,
      /^error: No such approval request in this workspace\./,
      'not found, not forbidden',
    );
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
    // The operator's break-glass, recorded and shown as theirs: the OS user and host that sent it.
    const asserted = { os_user: userInfo().username, host: hostname() };
    assert.deepEqual(
      [
        (rejected.json as { decided_via: string }).decided_via,
        (rejected.json as { operator_asserted: unknown }).operator_asserted,
      ],
      ['operator', asserted],
    );
    const [decider] = await s.db.query<{ id: string }[]>('SELECT id FROM users WHERE email = $1', [w.email]);
    const shown = await admin('approval', 'show', '--id', approvalId);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(
      shown.text,
      new RegExp(
        `^Rejected as member ${decider!.id} at .+: OPERATOR-ASSERTED by ${asserted.os_user} on ${asserted.host} at the admin CLI, not proven by the member$`,
        'm',
      ),
    );
    const late = await admin('approval', 'approve', '--id', approvalId, '--as', w.email);
    assert.match(late.stderr, /^error: This request is no longer waiting for a decision: it is REJECTED\./);
  });

  it('replies through the channel provider, refuses a suppressed contact, and stops at once when the key is revoked', async () => {
    const w = await workspaceWithKey(s.db, { role: 'member', scopes: ['leads:read', 'leads:write'] });
    const lead = (await postLead(testApp(s.db), w.key.key, intakeBody({ message: 'Call me?' }))).body
      .data as {
      id: string;
      email: string;
    };
    const { call } = await mcpClient(api.url, w.key.key, { protocolVersion: '2026-07-28' });
    const reply = await call('conversation.reply', {
      leadId: lead.id,
      channel: 'email',
      body: 'Happy to call tomorrow at 10.',
    });
    // Queued with the change; the worker's message:<id> workflow sends it (test/e2e/channels.test.ts).
    assert.equal(structured<{ status: string }>(reply).status, 'queued');
    const threads = await call('conversation.list', { leadId: lead.id });
    assert.deepEqual(
      structured<{ data: { channel: string; messages: number }[] }>(threads).data.map((t) => [
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
    const refused = await call('conversation.reply', {
      leadId: lead.id,
      channel: 'email',
      body: 'One more thing...',
    });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /^suppressed: This contact opted out of email/);

    await s.run(revokeApiKey, { id: w.key.id });
    await assert.rejects(call('lead.search'), /401|Unauthorized|unauthorized|authoriz/i);
  });
});
