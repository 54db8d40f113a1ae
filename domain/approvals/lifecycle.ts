import type { DataSource } from 'typeorm';
import { writeAudit } from '../kernel/audit';
import { Data } from '../kernel/data';
import { DomainError, notFound } from '../kernel/errors';
import type { Decision, GatedCall } from '../kernel/gate';
import { requestHash } from '../kernel/idempotency';
import { roleRefusal } from '../kernel/permissions';
import { membersIn } from '../identity/repository';
import type { Approval, ApprovalStatus } from './entities';
import { approvalsIn, type MoveFields } from './repository';
import { APPROVAL_TTL_DAYS, approvalView, type ApprovalView } from './views';
import { APPROVER_ROLE, canMove, requireMove } from './rules';

/**
 * Records a key's gated call as a pending request, in the caller's transaction. The same key asking
 * the same operation with the same arguments while one waits gets that one back (`created: false`).
 */
export async function parkRequest(data: Data, call: GatedCall): Promise<{ row: Approval; created: boolean }> {
  const approvals = approvalsIn(data);
  const inputHash = requestHash(call.input);
  const inserted = await approvals.park({
    operation: call.operation,
    input: call.input,
    inputHash,
    summary: call.summary,
    keyId: call.principal.keyId,
    userId: call.principal.userId,
    days: APPROVAL_TTL_DAYS,
  });
  if (inserted) return { row: inserted, created: true };
  const waiting = await approvals.waiting(call.principal.keyId, call.operation, inputHash);
  if (!waiting) throw new Error('approval request neither inserted nor found');
  return { row: waiting, created: false };
}

/** The one place a request changes state: the rules allow the move, or it is refused saying why. */
export async function move(
  data: Data,
  row: Approval,
  to: ApprovalStatus,
  f: MoveFields = {},
): Promise<Approval> {
  requireMove(row.status, to);
  return approvalsIn(data).move(row.id, to, f);
}

export const lock = async (data: Data, approvalId: string) => {
  const row = await approvalsIn(data).find(approvalId, { lock: true });
  if (!row) throw new DomainError('not_found', 'No such approval request.', { field: 'id' });
  return row;
};

/**
 * Records a person's decision, checked when it is made: the request must still wait, and the
 * approver must be a live admin or owner of its workspace. Audited on the approver's name.
 */
export async function recordDecision(db: DataSource, approvalId: string, d: Decision): Promise<ApprovalView> {
  return db.transaction(async (m) => {
    // Any workspace's request: the operator decides through the request's workflow, by its id.
    const data = new Data(m, undefined);
    const row = await lock(data, approvalId);
    const to = d.decision === 'approve' ? 'APPROVED' : 'REJECTED';
    requireMove(row.status, to);
    const approver = await membersIn(data.in(row.workspace_id)).byEmail(d.approverEmail);
    const refusal = roleRefusal(approver?.role ?? null, APPROVER_ROLE);
    if (!approver || refusal)
      throw new DomainError(
        'forbidden',
        `${d.approverEmail} may not decide this request: only an admin or owner of its workspace may.`,
        {},
        `approver: ${refusal}`,
      );
    const decided = await move(data, row, to, { decidedBy: approver.userId, reason: d.reason });
    await writeAudit(m, {
      door: 'admin',
      action: `approval.${d.decision}`,
      outcome: 'allowed',
      workspaceId: row.workspace_id,
      actorUserId: approver.userId,
      details: { approval_id: approvalId, operation: row.operation },
    });
    return approvalView(decided);
  });
}

/** Ends a request nobody decided within its time; a later decision is refused with this status. */
export async function expireApproval(db: DataSource, approvalId: string): Promise<ApprovalView> {
  return db.transaction(async (m) => {
    const data = new Data(m, undefined);
    const row = await lock(data, approvalId);
    if (!canMove(row.status, 'EXPIRED')) return approvalView(row);
    return approvalView(await move(data, row, 'EXPIRED', { reason: 'Nobody decided within 7 days.' }));
  });
}

/** Takes back a request the key parked: it never runs, and a later decision is refused. */
export async function withdrawApproval(data: Data, row: Approval): Promise<ApprovalView> {
  return approvalView(
    await move(data, row, 'CANCELLED', { reason: 'Withdrawn by the assistant that asked.' }),
  );
}

/** Where a request stands, or not found: after an Update's failure, say what the request is now. */
export async function approvalStatus(db: DataSource, approvalId: string): Promise<ApprovalStatus> {
  const row = await approvalsIn(new Data(db.manager, undefined)).find(approvalId);
  if (!row) throw notFound('approval request');
  return row.status;
}
