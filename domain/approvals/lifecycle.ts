import type { DataSource, EntityManager } from 'typeorm';
import { writeAudit } from '../kernel/audit';
import { DomainError, notFound } from '../kernel/errors';
import type { Decision, GatedCall } from '../kernel/gate';
import { requestHash } from '../kernel/idempotency';
import { roleRefusal, type Role } from '../kernel/permissions';
import { returningOne } from '../kernel/sql';
import {
  APPROVAL_COLUMNS,
  APPROVAL_TTL_DAYS,
  approvalView,
  findApproval,
  type ApprovalRow,
  type ApprovalStatus,
  type ApprovalView,
  type RecordedError,
} from './rows';
import { APPROVER_ROLE, canMove, requireMove } from './rules';

type Query = Pick<EntityManager, 'query'>;

/**
 * Records a key's gated call as a pending request, in the caller's transaction. The same key asking
 * the same operation with the same arguments while one waits gets that one back (`created: false`).
 */
export async function parkRequest(
  m: Query,
  call: GatedCall,
): Promise<{ row: ApprovalRow; created: boolean }> {
  const hash = requestHash(call.input);
  const [inserted] = await m.query<ApprovalRow[]>(
    `INSERT INTO approvals (workspace_id, operation, input, input_hash, summary, requested_by_key, requested_by_user, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, clock_timestamp() + make_interval(days => $8))
     ON CONFLICT (requested_by_key, operation, input_hash) WHERE status = 'PENDING' DO NOTHING
     RETURNING ${APPROVAL_COLUMNS}`,
    [
      call.workspaceId,
      call.operation,
      JSON.stringify(call.input),
      hash,
      call.summary,
      call.principal.keyId,
      call.principal.userId,
      APPROVAL_TTL_DAYS,
    ],
  );
  if (inserted) return { row: inserted, created: true };
  const [waiting] = await m.query<ApprovalRow[]>(
    `SELECT ${APPROVAL_COLUMNS} FROM approvals
      WHERE requested_by_key = $1 AND operation = $2 AND input_hash = $3 AND status = 'PENDING'`,
    [call.principal.keyId, call.operation, hash],
  );
  if (!waiting) throw new Error('approval request neither inserted nor found');
  return { row: waiting, created: false };
}

export type MoveFields = { decidedBy?: string; reason?: string; outcome?: unknown; error?: RecordedError };

/** The one place a request changes state: the rules allow the move, or it is refused saying why. */
export async function move(
  m: Query,
  row: ApprovalRow,
  to: ApprovalStatus,
  f: MoveFields = {},
): Promise<ApprovalRow> {
  requireMove(row.status, to);
  const decided = to === 'APPROVED' || to === 'REJECTED';
  return returningOne<ApprovalRow>(
    m,
    `UPDATE approvals SET status = $2,
            decided_by = coalesce($3, decided_by),
            decided_at = CASE WHEN $4::boolean THEN clock_timestamp() ELSE decided_at END,
            reason = coalesce($5, reason), outcome = coalesce($6::jsonb, outcome), error = $7::jsonb,
            finished_at = CASE WHEN $2 = 'APPROVED' THEN NULL ELSE clock_timestamp() END
      WHERE id = $1 RETURNING ${APPROVAL_COLUMNS}`,
    [
      row.id,
      to,
      f.decidedBy ?? null,
      decided,
      f.reason ?? null,
      f.outcome === undefined ? null : JSON.stringify(f.outcome),
      f.error ? JSON.stringify(f.error) : null,
    ],
  );
}

export const lock = async (m: Query, approvalId: string) => {
  const row = await findApproval(m, approvalId, { lock: true });
  if (!row) throw new DomainError('not_found', 'No such approval request.', { field: 'id' });
  return row;
};

/**
 * Records a person's decision, checked when it is made: the request must still wait, and the
 * approver must be a live admin or owner of its workspace. Audited on the approver's name.
 */
export async function recordDecision(db: DataSource, approvalId: string, d: Decision): Promise<ApprovalView> {
  return db.transaction(async (m) => {
    const row = await lock(m, approvalId);
    const to = d.decision === 'approve' ? 'APPROVED' : 'REJECTED';
    requireMove(row.status, to);
    const [approver] = await m.query<{ id: string; role: Role }[]>(
      `SELECT u.id, ms.role FROM users u JOIN memberships ms ON ms.user_id = u.id
        WHERE ms.workspace_id = $1 AND u.email = lower(btrim($2))`,
      [row.workspace_id, d.approverEmail],
    );
    const refusal = roleRefusal(approver?.role ?? null, APPROVER_ROLE);
    if (!approver || refusal)
      throw new DomainError(
        'forbidden',
        `${d.approverEmail} may not decide this request: only an admin or owner of its workspace may.`,
        {},
        `approver: ${refusal}`,
      );
    const decided = await move(m, row, to, { decidedBy: approver.id, reason: d.reason });
    await writeAudit(m, {
      door: 'admin',
      action: `approval.${d.decision}`,
      outcome: 'allowed',
      workspaceId: row.workspace_id,
      actorUserId: approver.id,
      details: { approval_id: approvalId, operation: row.operation },
    });
    return approvalView(decided);
  });
}

/** Ends a request nobody decided within its time; a later decision is refused with this status. */
export async function expireApproval(db: DataSource, approvalId: string): Promise<ApprovalView> {
  return db.transaction(async (m) => {
    const row = await lock(m, approvalId);
    if (!canMove(row.status, 'EXPIRED')) return approvalView(row);
    return approvalView(await move(m, row, 'EXPIRED', { reason: 'Nobody decided within 7 days.' }));
  });
}

/** Takes back a request the key parked: it never runs, and a later decision is refused. */
export async function withdrawApproval(m: Query, row: ApprovalRow): Promise<ApprovalView> {
  return approvalView(await move(m, row, 'CANCELLED', { reason: 'Withdrawn by the assistant that asked.' }));
}

/** Where a request stands, or not found: after an Update's failure, say what the request is now. */
export async function approvalStatus(db: DataSource, approvalId: string): Promise<ApprovalStatus> {
  const row = await findApproval(db, approvalId);
  if (!row) throw notFound('approval request');
  return row.status;
}
