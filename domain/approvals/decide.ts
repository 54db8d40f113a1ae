import type { DataSource } from 'typeorm';
import type { Actor } from '../kernel/actor';
import { writeAudit } from '../kernel/audit';
import { DomainError } from '../kernel/errors';
import type { Services } from '../kernel/operation';
import { roleAtLeastAdmin } from './rules';
import { runOperation } from '../kernel/runner';
import { operationNamed } from '../registry';
import { APPROVAL_COLUMNS, approvalView, findApproval, type ApprovalRow, type ApprovalView } from './rows';
import type { Role } from '../kernel/permissions';

export type Decision = { decision: 'approve' | 'reject'; approverEmail: string; reason?: string };

const refused = (message: string, reason: string) => new DomainError('forbidden', message, {}, reason);

/**
 * Records a person's decision on a pending request, checked at decision time: the approver must be a
 * live admin or owner of the request's workspace. Returns the decider's user id.
 */
export async function recordDecision(db: DataSource, approvalId: string, d: Decision): Promise<string> {
  return db.transaction(async (m) => {
    const [row] = await m.query<ApprovalRow[]>(
      `SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id = $1 FOR UPDATE`,
      [approvalId],
    );
    if (!row) throw new DomainError('not_found', 'No such approval request.');
    if (row.status !== 'PENDING')
      throw new DomainError(
        'conflict',
        `This request is no longer waiting for a decision: it is ${row.status}.`,
      );
    const [approver] = await m.query<{ id: string; role: Role }[]>(
      `SELECT u.id, ms.role FROM users u JOIN memberships ms ON ms.user_id = u.id
        WHERE ms.workspace_id = $1 AND u.email = lower(btrim($2))`,
      [row.workspace_id, d.approverEmail],
    );
    if (!approver || !roleAtLeastAdmin(approver.role)) {
      throw refused(
        `${d.approverEmail} may not decide this request: only an admin or owner of its workspace may.`,
        approver
          ? `approver's role ${approver.role} is below admin`
          : 'approver is not a member of the workspace',
      );
    }
    const status = d.decision === 'approve' ? 'APPROVED' : 'REJECTED';
    await m.query(
      `UPDATE approvals SET status = $2, decided_by = $3, decided_at = clock_timestamp(), reason = $4,
              finished_at = CASE WHEN $2 = 'REJECTED' THEN clock_timestamp() END WHERE id = $1`,
      [approvalId, status, approver.id, d.reason ?? null],
    );
    await writeAudit(m, {
      door: 'admin',
      action: `approval.${d.decision}`,
      outcome: 'allowed',
      workspaceId: row.workspace_id,
      actorUserId: approver.id,
      details: { approval_id: approvalId, operation: row.operation },
    });
    return approver.id;
  });
}

/**
 * Runs an approved request's operation exactly once, on the approver's authority (their live role,
 * checked by the runner), and records the outcome in the same transaction as the change. A re-run
 * (a worker that crashed before Temporal heard the result) finds the outcome recorded and answers it.
 */
export async function runApproved(services: Services, approvalId: string): Promise<ApprovalView> {
  const { db } = services;
  const row = await findApproval(db, approvalId);
  if (!row) throw new Error(`approval ${approvalId} does not exist`);
  if (row.status !== 'APPROVED') return approvalView(row);
  const op = operationNamed(row.operation);
  const [approver] = await db.query<{ role: Role }[]>(
    'SELECT role FROM memberships WHERE workspace_id = $1 AND user_id = $2',
    [row.workspace_id, row.decided_by],
  );
  const actor: Actor = {
    type: 'member',
    userId: row.decided_by!,
    workspaceId: row.workspace_id,
    role: approver?.role ?? null,
    ctx: {
      door: 'activity',
      requestId: `approval:${approvalId}`,
      actorUserId: row.decided_by!,
      keyId: row.requested_by_key,
    },
  };
  try {
    if (!op) throw new DomainError('not_found', `The operation ${row.operation} no longer exists.`);
    if (!roleAtLeastAdmin(actor.role))
      throw refused(
        'The approver is no longer an admin or owner of the workspace.',
        'approver demoted before execution',
      );
    await runOperation(services, op, actor, row.input, {
      auditDetails: {
        approval_id: approvalId,
        approved_by: row.decided_by,
        requested_by_key: row.requested_by_key,
        requested_by_user: row.requested_by_user,
      },
      alsoInTransaction: async (m, output) => {
        const [[done]] = await m.query<[{ id: string }[], number]>(
          `UPDATE approvals SET status = 'EXECUTED', outcome = $2, finished_at = clock_timestamp()
            WHERE id = $1 AND status = 'APPROVED' RETURNING id`,
          [approvalId, JSON.stringify(output ?? null)],
        );
        // Someone else already ran it: roll this run back.
        if (!done) throw new DomainError('conflict', 'This request was already executed.');
      },
    });
  } catch (err) {
    if (!(err instanceof DomainError)) throw err; // our own fault: the activity retries
    await db.query(
      `UPDATE approvals SET status = 'FAILED', reason = $2, finished_at = clock_timestamp()
        WHERE id = $1 AND status = 'APPROVED'`,
      [approvalId, err.auditReason ? `${err.message} (${err.auditReason})` : err.message],
    );
  }
  return approvalView((await findApproval(db, approvalId))!);
}

/** Ends a request nobody decided within its time: a later decision is refused with this status. */
export async function expireApproval(db: DataSource, approvalId: string): Promise<ApprovalView> {
  await db.query(
    `UPDATE approvals SET status = 'EXPIRED', finished_at = clock_timestamp() WHERE id = $1 AND status = 'PENDING'`,
    [approvalId],
  );
  return approvalView((await findApproval(db, approvalId))!);
}
