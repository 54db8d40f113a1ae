import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { approveApproval } from '../../domain/approvals/operations/approve';
import { rejectApproval } from '../../domain/approvals/operations/reject';
import { addConnection } from '../../domain/connections/operations/add';
import { createApiKey } from '../../domain/identity/operations/key-create';
import { addMember } from '../../domain/identity/operations/member-add';
import { DomainError } from '../../domain/kernel/errors';
import type { Services } from '../../domain/kernel/operation';
import { SERVICE_DEFAULTS, testApp } from '../helpers/api';
import type { TestDatabase } from '../helpers/db';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { checkToolResult, rpc, serve, type TaskAnswer } from '../helpers/mcp';
import { approvalEnvironment } from '../helpers/approval-environment';

const DAY = 86_400_000;

/**
 * Approvals as MCP tasks (the tasks extension), over HTTP against the real endpoint, with the approval
 * workflow on Temporal's time-skipping server: a week's wait takes a moment.
 */
describe('gated calls as tasks: park, poll, decide, withdraw, expire', () => {
  let env: TestWorkflowEnvironment;
  let t: TestDatabase;
  let services: Services;
  let stop: () => Promise<void>;
  let api: Awaited<ReturnType<typeof serve>>;
  let n = 0;

  before(async () => {
    ({ env, t, services, stop } = await approvalEnvironment('mcp-tasks'));
    api = await serve(testApp(t.db, { ports: { approvals: services.approvals } }));
  });
  after(async () => {
    await api?.close();
    await stop?.();
  });

  /** A workspace with a connected system, an assistant's key that may disconnect it, and an admin. */
  async function assistant() {
    const w = await workspaceWithKey(t.db, { role: 'admin', scopes: ['business:read', 'business:write'] });
    const workspaceId = w.workspace.id;
    const admin = `admin${++n}@example.com`;
    await asOperator(t.db, addMember, { email: admin, role: 'admin' }, { workspaceId });
    const connection = await asOperator(t.db, addConnection, { system: 'google_calendar' }, { workspaceId });
    const call = (method: string, params: Record<string, unknown>, tasks = true) =>
      rpc(api.url, w.key.key, method, params, { tasks });
    const park = async () => {
      const answer = await call('tools/call', {
        name: 'connection.disconnect',
        arguments: { connectionId: connection.id },
      });
      return answer.result as TaskAnswer;
    };
    const task = async (taskId: string) => (await call('tasks/get', { taskId })).result as TaskAnswer;
    const decide = (decision: 'approve' | 'reject', taskId: string, reason?: string) =>
      asOperator(services, decision === 'approve' ? approveApproval : rejectApproval, {
        id: taskId,
        as: admin,
        ...(reason ? { reason } : {}),
      });
    const status = async () =>
      (
        await t.db.query<{ status: string }[]>('SELECT status FROM connections WHERE id = $1', [
          connection.id,
        ])
      )[0]!.status;
    return { w, workspaceId, admin, connection, call, park, task, decide, status };
  }

  it('answers a task that is durable before the answer, and keeps working until a person decides', async () => {
    const a = await assistant();
    const created = await a.park();
    assert.equal(created.resultType, 'task');
    assert.equal('content' in created, false, 'a CreateTaskResult, not a tool result');
    assert.equal(created.status, 'working');
    assert.equal(
      created.statusMessage,
      `Waiting for a person to approve: Disconnect Google Calendar from ${a.w.workspace.name}. Nothing has happened yet. A person decides at ${SERVICE_DEFAULTS.publicUrl}/app/w/${a.w.workspace.id}/approvals/${created.taskId}.`,
    );
    assert.ok(created.ttlMs >= 7 * DAY, 'the TTL covers the 7-day wait');
    assert.ok(
      created.pollIntervalMs >= 10_000 && created.pollIntervalMs <= 60_000,
      'poll every few tens of seconds',
    );
    const [row] = await t.db.query<{ status: string }[]>('SELECT status FROM approvals WHERE id = $1', [
      created.taskId,
    ]);
    assert.equal(row!.status, 'PENDING', 'the task is its approval request');
    const polled = await a.task(created.taskId);
    assert.equal(polled.status, 'working');
    assert.equal(polled.taskId, created.taskId);
    assert.equal(await a.status(), 'CONNECTED', 'nothing has happened');
  });

  it('completes with exactly what the tool answers once approved and run', async () => {
    const a = await assistant();
    const created = await a.park();
    await a.decide('approve', created.taskId);
    const done = await a.task(created.taskId);
    assert.equal(done.status, 'completed');
    assert.equal(await a.status(), 'DISCONNECTED');
    const { tools } = (await a.call('tools/list', {})).result as {
      tools: { name: string; outputSchema: object }[];
    };
    const tool = tools.find((x) => x.name === 'connection.disconnect')!;
    checkToolResult(tool, done.result!);
    assert.deepEqual(done.result!.structuredContent, {
      id: a.connection.id,
      system: 'google_calendar',
      name: 'Google Calendar',
      status: 'DISCONNECTED',
      connected_at: a.connection.connected_at,
      disconnected_at: (done.result!.structuredContent as { disconnected_at: string }).disconnected_at,
    });
  });

  it('completes with the tool error the operation gives when, approved, it is refused as it runs', async () => {
    const a = await assistant();
    const created = await a.park();
    await t.db.query('DELETE FROM connections WHERE id = $1', [a.connection.id]);
    await a.decide('approve', created.taskId);
    const done = await a.task(created.taskId);
    assert.equal(done.status, 'completed', 'a tool error is a completed task, not a failed one');
    assert.equal(done.result!.isError, true);
    assert.equal(done.result!.content[0]!.text, 'not_found: No such connection in this workspace.');
  });

  it('fails when a person rejects it, saying why', async () => {
    const a = await assistant();
    const created = await a.park();
    await a.decide('reject', created.taskId, 'We still use that calendar.');
    const failed = await a.task(created.taskId);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error!.data!.status, 'REJECTED');
    assert.equal(failed.error!.data!.reason, 'We still use that calendar.');
    assert.match(failed.statusMessage, /Rejected by a person: We still use that calendar\./);
    assert.equal(await a.status(), 'CONNECTED');
  });

  it('is withdrawn by tasks/cancel from its key: cancelled, audited, and a later approval is refused', async () => {
    const a = await assistant();
    const created = await a.park();
    const ack = await a.call('tasks/cancel', { taskId: created.taskId });
    assert.deepEqual(ack.result, { resultType: 'complete', _meta: ack.result!._meta });
    assert.equal((await a.task(created.taskId)).status, 'cancelled');
    await assert.rejects(a.decide('approve', created.taskId), (err: unknown) => {
      assert.ok(err instanceof DomainError);
      assert.equal(err.code, 'conflict');
      assert.equal(err.message, 'This request is no longer waiting for a decision: it is CANCELLED.');
      return true;
    });
    assert.equal(await a.status(), 'CONNECTED');
    const audit = await t.db.query<{ door: string; action: string; outcome: string }[]>(
      `SELECT door, action, outcome FROM audit_log WHERE workspace_id = $1 AND action IN ('approval.cancel', 'tasks/cancel') ORDER BY id`,
      [a.workspaceId],
    );
    assert.deepEqual(
      audit.map((r) => [r.door, r.action, r.outcome]),
      [
        ['mcp', 'approval.cancel', 'allowed'],
        ['mcp', 'tasks/cancel', 'allowed'],
      ],
    );
  });

  it('belongs to the key that created it: any other key gets not found, and changes nothing', async () => {
    const a = await assistant();
    const created = await a.park();
    const other = await asOperator(
      t.db,
      createApiKey,
      { ownerEmail: a.admin, name: 'another assistant', scopes: ['business:read', 'business:write'] },
      { workspaceId: a.workspaceId },
    );
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      const answer = await rpc(api.url, other.key, method, { taskId: created.taskId }, { tasks: true });
      assert.deepEqual(
        answer.error,
        { code: -32602, message: 'Failed to retrieve task: Task not found' },
        method,
      );
    }
    assert.equal((await a.task(created.taskId)).status, 'working', 'still waiting');
  });

  it('fails when nobody decides within 7 days', async () => {
    const a = await assistant();
    const created = await a.park();
    await env.sleep(7 * DAY + 60_000);
    await env.client.workflow.getHandle(`approval:${created.taskId}`).result();
    const expired = await a.task(created.taskId);
    assert.equal(expired.status, 'failed');
    assert.equal(expired.error!.data!.status, 'EXPIRED');
    assert.equal(await a.status(), 'CONNECTED');
  });

  it('keeps tasks for clients that declare the extension: others get the pending result, and -32021 on tasks/*', async () => {
    const a = await assistant();
    const plain = await a.call(
      'tools/call',
      { name: 'connection.disconnect', arguments: { connectionId: a.connection.id } },
      false,
    );
    const pending = plain.result as { structuredContent: { status: string; approval_id: string } };
    assert.equal(pending.structuredContent.status, 'pending_approval');
    const refused = await a.call('tasks/get', { taskId: pending.structuredContent.approval_id }, false);
    assert.equal(refused.status, 400);
    assert.equal(refused.error!.code, -32021);
    const withdrawn = await a.call(
      'tools/call',
      { name: 'approval.cancel', arguments: { approvalId: pending.structuredContent.approval_id } },
      false,
    );
    assert.equal(
      (withdrawn.result as { structuredContent: { status: string } }).structuredContent.status,
      'CANCELLED',
    );
  });
});
