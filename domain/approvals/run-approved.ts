import type { Actor } from '../kernel/actor';
import { Data } from '../kernel/data';
import { DomainError } from '../kernel/errors';
import type { Services } from '../kernel/operation';
import { roleRefusal } from '../kernel/permissions';
import { runOperation } from '../kernel/runner';
import { membersIn } from '../identity/repository';
import { operationNamed } from '../registry';
import { lock, move } from './lifecycle';
import { approvalsIn } from './repository';
import { approvalView, type ApprovalView } from './views';
import { APPROVER_ROLE, canMove } from './rules';

/**
 * Runs an approved request's operation exactly once, on the approver's authority (their live role,
 * checked by the runner), and records the outcome in the same transaction as the change. A re-run (a
 * worker that crashed before Temporal heard the result) finds the outcome recorded and answers it.
 * A refusal ends the request FAILED with the operation's own code and message.
 */
export async function runApproved(services: Services, approvalId: string): Promise<ApprovalView> {
  const { db } = services;
  const approvals = approvalsIn(new Data(db.manager, undefined));
  const row = await approvals.find(approvalId);
  if (!row) throw new Error(`approval ${approvalId} does not exist`);
  if (!canMove(row.status, 'EXECUTED')) return approvalView(row);
  const role = row.decided_by
    ? await membersIn(new Data(db.manager, row.workspace_id)).roleOf(row.decided_by)
    : null;
  const actor: Actor = {
    type: 'member',
    userId: row.decided_by!,
    workspaceId: row.workspace_id,
    role,
    ctx: {
      door: 'activity',
      requestId: `approval:${approvalId}`,
      actorUserId: row.decided_by!,
      keyId: row.requested_by_key,
    },
  };
  try {
    const op = operationNamed(row.operation);
    if (!op) throw new DomainError('not_found', `The operation ${row.operation} no longer exists.`);
    const demoted = roleRefusal(actor.role, APPROVER_ROLE);
    if (demoted)
      throw new DomainError(
        'forbidden',
        'The approver is no longer an admin or owner of the workspace.',
        {},
        `approver: ${demoted}`,
      );
    await runOperation(services, op, actor, row.input, {
      auditDetails: {
        approval_id: approvalId,
        approved_by: row.decided_by,
        requested_by_key: row.requested_by_key,
        requested_by_user: row.requested_by_user,
      },
      // Someone else already ran it: the move is refused and this run rolls back.
      alsoInTransaction: async (m, output) => {
        const data = new Data(m, row.workspace_id);
        await move(data, await lock(data, approvalId), 'EXECUTED', { outcome: output ?? null });
      },
    });
  } catch (err) {
    if (!(err instanceof DomainError)) throw err; // our own fault: the activity retries
    await db.transaction(async (m) => {
      const data = new Data(m, row.workspace_id);
      const current = await lock(data, approvalId);
      if (!canMove(current.status, 'FAILED')) return;
      const field = typeof err.details.field === 'string' ? { field: err.details.field } : {};
      await move(data, current, 'FAILED', {
        reason: err.message,
        error: { code: err.code, message: err.message, ...field },
      });
    });
  }
  return approvalView((await approvals.find(approvalId))!);
}
