import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { approveApproval } from '../../domain/approvals/operations/approve';
import { cancelApproval } from '../../domain/approvals/operations/cancel';
import { getApproval } from '../../domain/approvals/operations/get';
import { listApprovals } from '../../domain/approvals/operations/list';
import { rejectApproval } from '../../domain/approvals/operations/reject';
import type { ApprovalView } from '../../domain/approvals/views';
import { approvalWorkflowId } from '../../infra/temporal/workflow-ids';
import { runApproved } from '../../domain/approvals/run-approved';
import { taskOf } from '../../domain/approvals/tasks';
import { disconnectConnection } from '../../domain/connections/operations/disconnect';
import { addConnection } from '../../domain/connections/operations/add';
import { authenticateKey } from '../../domain/identity/authenticate';
import { createApiKey } from '../../domain/identity/operations/key-create';
import { addMember } from '../../domain/identity/operations/member-add';
import { setMemberRole } from '../../domain/identity/operations/member-set-role';
import { keyActor } from '../../domain/kernel/actor';
import { DomainError } from '../../domain/kernel/errors';
import type { Services } from '../../domain/kernel/operation';
import { executeOrPark, runOperation } from '../../domain/kernel/runner';
import { approvalEnvironment } from '../helpers/approval-environment';
import type { TestDatabase } from '../helpers/db';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';

const DAY = 86_400_000;

describe('the approval gate under time-skipping: park, decide, run once, expire', () => {
  let env: TestWorkflowEnvironment;
  let t: TestDatabase;
  let services: Services;
  let stop: () => Promise<void>;
  let n = 0;

  before(async () => {
    ({ env, t, services, stop } = await approvalEnvironment('approvals'));
  });
  after(async () => {
    await stop?.();
  });

  /** A workspace with a connected system, a key allowed to disconnect it, an admin and a plain member. */
  async function parked() {
    const w = await workspaceWithKey(t.db, { role: 'admin', scopes: ['business:read', 'business:write'] });
    const workspaceId = w.workspace.id;
    const admin = `approver${++n}@example.com`;
    const member = `member${n}@example.com`;
    await asOperator(t.db, addMember, { email: admin, role: 'admin' }, { workspaceId });
    await asOperator(t.db, addMember, { email: member, role: 'member' }, { workspaceId });
    // Added by its id, as an integrator types it; people read its name.
    const connection = await asOperator(t.db, addConnection, { system: 'google_calendar' }, { workspaceId });
    const auth = await authenticateKey(t.db, w.key.key, undefined);
    if (!auth.ok) throw new Error(auth.reason);
    const actor = keyActor(auth.principal, { door: 'mcp', requestId: `req_${n}` });
    const ask = async () => {
      const r = await executeOrPark(services, disconnectConnection, actor, { connectionId: connection.id });
      if (!('parked' in r)) throw new Error('the gated call ran instead of parking');
      return r.parked;
    };
    const request = await ask();
    const handle = env.client.workflow.getHandle(approvalWorkflowId(request.approval_id));
    // What `approval approve|reject --id A --as E` runs: an Update to the request's workflow.
    const decide = async (decision: 'approve' | 'reject', approverEmail: string, reason?: string) =>
      (await asOperator(services, decision === 'approve' ? approveApproval : rejectApproval, {
        id: request.approval_id,
        as: approverEmail,
        ...(reason ? { reason } : {}),
      })) as ApprovalView;
    const status = async () =>
      (
        await t.db.query<{ status: string }[]>('SELECT status FROM connections WHERE id = $1', [
          connection.id,
        ])
      )[0]!.status;
    return { w, workspaceId, admin, member, connection, request, ask, handle, decide, status, actor };
  }

  /** The refusal, as the operator door gets it: the domain's own code and message, through Temporal. */
  const refusalOf = async (work: Promise<unknown>) => {
    try {
      await work;
    } catch (err) {
      assert.ok(err instanceof DomainError, `a refusal, not ${String(err)}`);
      return `${err.code}: ${err.message}`;
    }
    assert.fail('the decision was accepted');
  };

  it('parks a gated call: nothing happens, and the same request asked again is the same approval', async () => {
    const p = await parked();
    assert.equal(p.request.status, 'pending_approval');
    assert.equal(p.request.summary, `Disconnect Google Calendar from ${p.w.workspace.name}`);
    assert.ok(Date.parse(p.request.expires_at) - Date.now() > 6.9 * DAY);
    const again = await p.ask();
    assert.equal(again.approval_id, p.request.approval_id);
    assert.equal(again.created, false);
    assert.equal(await p.status(), 'CONNECTED', 'nothing has happened');
    const rows = await t.db.query('SELECT id FROM approvals WHERE workspace_id = $1', [p.workspaceId]);
    assert.equal(rows.length, 1, 'one request');
    const description = await p.handle.describe();
    assert.equal(description.status.name, 'RUNNING');
    assert.equal((description.memo as { operation: string }).operation, 'connection.disconnect');
    const audit = await t.db.query<{ outcome: string; action: string; door: string }[]>(
      `SELECT outcome, action, door FROM audit_log WHERE workspace_id = $1 AND outcome = 'parked'`,
      [p.workspaceId],
    );
    assert.deepEqual(
      audit.map((r) => [r.door, r.action]),
      [
        ['mcp', 'connection.disconnect'],
        ['mcp', 'connection.disconnect'],
      ],
    );
  });

  it("runs an approved request exactly once, on the approver's authority, even when approved twice", async () => {
    const p = await parked();
    const outcome = await p.decide('approve', p.admin);
    assert.equal(outcome.status, 'EXECUTED');
    assert.equal((outcome.outcome as { status: string }).status, 'DISCONNECTED');
    assert.equal(await p.status(), 'DISCONNECTED');
    assert.match(
      await refusalOf(p.decide('approve', p.admin)),
      /^conflict: This request is no longer waiting for a decision: it is EXECUTED\.$/,
    );
    // A worker that crashed after the run but before Temporal heard of it runs the activity again: it
    // finds the outcome recorded and answers it without running the operation a second time.
    assert.equal((await runApproved(services, p.request.approval_id)).status, 'EXECUTED');
    const runs = await t.db.query<{ door: string; actor_user_id: string; details: Record<string, string> }[]>(
      `SELECT door, actor_user_id, details FROM audit_log WHERE workspace_id = $1 AND action = 'connection.disconnect' AND outcome = 'allowed'`,
      [p.workspaceId],
    );
    assert.equal(runs.length, 1, 'ran once');
    const [approver] = await t.db.query<{ id: string }[]>('SELECT id FROM users WHERE email = $1', [p.admin]);
    assert.equal(runs[0]!.door, 'activity');
    assert.equal(runs[0]!.actor_user_id, approver!.id, 'on the approver’s authority');
    assert.equal(runs[0]!.details.requested_by_key, p.w.key.id, 'naming the original requester');
    assert.equal((await p.handle.result()).status, 'EXECUTED');
  });

  it('shows a key only the requests it parked itself', async () => {
    const p = await parked();
    const other = await asOperator(
      t.db,
      createApiKey,
      { ownerEmail: p.admin, name: 'another assistant', scopes: ['business:read'] },
      { workspaceId: p.workspaceId },
    );
    const actorOf = async (key: string) => {
      const auth = await authenticateKey(t.db, key, undefined);
      if (!auth.ok) throw new Error(auth.reason);
      return keyActor(auth.principal, { door: 'mcp' });
    };
    const list = async (key: string) =>
      (await runOperation(services, listApprovals, await actorOf(key), {})).data.map((a) => a.id);
    assert.deepEqual(await list(p.w.key.key), [p.request.approval_id]);
    assert.deepEqual(await list(other.key), []);
    await assert.rejects(
      runOperation(services, getApproval, await actorOf(other.key), { approvalId: p.request.approval_id }),
      /No such approval request/,
    );
  });

  it('never runs a rejected request', async () => {
    const p = await parked();
    const outcome = await p.decide('reject', p.admin, 'We still use that calendar.');
    assert.equal(outcome.status, 'REJECTED');
    assert.equal(outcome.reason, 'We still use that calendar.');
    assert.equal(await p.status(), 'CONNECTED');
  });

  it('refuses a member who is not an admin, and an approver demoted since the request', async () => {
    const p = await parked();
    assert.match(await refusalOf(p.decide('approve', p.member)), /^forbidden: .*only an admin or owner/);
    await asOperator(t.db, setMemberRole, { email: p.admin, role: 'member' }, { workspaceId: p.workspaceId });
    assert.match(await refusalOf(p.decide('approve', p.admin)), /^forbidden: .*only an admin or owner/);
    assert.match(
      await refusalOf(asOperator(services, approveApproval, { id: randomUUID(), as: p.admin })),
      /^not_found: /,
    );
    assert.equal(await p.status(), 'CONNECTED');
    const [row] = await t.db.query<{ status: string }[]>('SELECT status FROM approvals WHERE id = $1', [
      p.request.approval_id,
    ]);
    assert.equal(row!.status, 'PENDING', 'still waiting for someone allowed');
  });

  it('expires after 7 days undecided, never runs, and refuses a late decision', async () => {
    const p = await parked();
    await env.sleep(7 * DAY + 60_000);
    const result = await p.handle.result();
    assert.equal(result.status, 'EXPIRED');
    assert.equal(await p.status(), 'CONNECTED');
    assert.match(
      await refusalOf(p.decide('approve', p.admin)),
      /^conflict: This request is no longer waiting for a decision: it is EXPIRED\.$/,
    );
    const task = taskOf(result);
    assert.equal(task.status, 'failed');
    assert.deepEqual(task.failure, { status: 'EXPIRED', reason: 'Nobody decided within 7 days.' });
  });

  it('lets the key that parked a request withdraw it: it never runs, and a later approval is refused', async () => {
    const p = await parked();
    const withdrawn = await runOperation(services, cancelApproval, p.actor, {
      approvalId: p.request.approval_id,
    });
    assert.equal(withdrawn.status, 'CANCELLED');
    assert.equal((await p.handle.result()).status, 'CANCELLED', 'its workflow ended');
    assert.match(
      await refusalOf(p.decide('approve', p.admin)),
      /^conflict: This request is no longer waiting for a decision: it is CANCELLED\.$/,
    );
    assert.equal(await p.status(), 'CONNECTED');
    assert.equal(taskOf(withdrawn).status, 'cancelled');
    assert.match(
      await refusalOf(runOperation(services, cancelApproval, p.actor, { approvalId: p.request.approval_id })),
      /^conflict: .*it is CANCELLED/,
    );
    const [audit] = await t.db.query<{ door: string; outcome: string }[]>(
      `SELECT door, outcome FROM audit_log WHERE action = 'approval.cancel' AND workspace_id = $1`,
      [p.workspaceId],
    );
    assert.deepEqual(audit, { door: 'mcp', outcome: 'allowed' });
  });
});
