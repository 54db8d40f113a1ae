import type { Actor } from '../kernel/actor';
import { writeAudit } from '../kernel/audit';
import { Data } from '../kernel/data';
import { gateRefusal, snapshotIntact } from '../kernel/effect';
import { parkedOperation } from '../kernel/gate';
import { DomainError } from '../kernel/errors';
import type { Services } from '../kernel/operation';
import { runOperation } from '../kernel/runner';
import { keysIn, membersIn } from '../identity';
import type { RecordedError } from './entities';
import { requesterRefusal } from './requester';
import { lock, move } from './lifecycle';
import { approvalsIn } from './repository';
import { approvalView, type ApprovalView } from './views';
import { decisionStanding } from './decider';
import { canMove, requireMove } from './rules';

/** What a refused run records: the refusal's code, message and field, and whether the gate refused it. */
const recorded = (err: DomainError): RecordedError => ({
  code: err.code,
  message: err.message,
  ...(typeof err.details.field === 'string' ? { field: err.details.field } : {}),
  ...(err.details.refused_by === 'gate' ? { refused_by: 'gate' as const } : {}),
  ...(Array.isArray(err.details.changed) ? { changed: err.details.changed as string[] } : {}),
});

/**
 * Runs an approved request's operation exactly once, exactly as approved, on the approver's authority
 * (their live role, checked by the runner), and records the outcome in the same transaction as the
 * change. In that transaction, before the operation runs, the request is locked, its requester's
 * authority checked, and the operation's effect read again under the lock the run takes: a bound part
 * that differs from the approved snapshot refuses the run. A re-run (a worker that crashed before
 * Temporal heard the result) finds the outcome recorded and answers it. A refusal ends the request
 * FAILED with the refusal's code and message.
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
    const op = parkedOperation(row.operation);
    if (!op) throw new DomainError('not_found', `The operation ${row.operation} no longer exists.`);
    // Asked again on the approver's standing now: demoted, removed, or (a policy set meanwhile) the
    // requester's own approval where a second person is required.
    const { refusal } = await decisionStanding(
      new Data(db.manager, undefined),
      row,
      { userId: row.decided_by! },
      'approve',
    );
    if (refusal)
      throw new DomainError(
        'forbidden',
        `The approver may no longer approve it: ${refusal.reason}.`,
        {},
        `approver: ${refusal.detail}`,
      );
    const approved = row.effect;
    if (!approved)
      throw gateRefusal(
        'approval predates snapshots: nobody can tell what was approved, so it does not run; ask for approval again.',
      );
    if (!snapshotIntact(approved))
      throw gateRefusal('the approved snapshot does not match its digest; nothing was done.');
    await runOperation(services, op, actor, row.input, {
      approved,
      auditDetails: {
        approval_id: approvalId,
        approved_by: row.decided_by,
        requested_by_key: row.requested_by_key,
        requested_by_user: row.requested_by_user,
        effect_digest: approved.digest,
      },
      // Held to commit: a second run waits here, then finds it executed; a withdrawal waits for the run.
      firstInTransaction: async (m) => {
        const data = new Data(m, row.workspace_id);
        const current = await lock(data, approvalId);
        requireMove(current.status, 'EXECUTED');
        const lost = requesterRefusal(await keysIn(data).standing(current.requested_by_key), op.requirement);
        if (lost) throw gateRefusal(`${lost}: the request no longer stands; nothing was done.`);
      },
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
      await move(data, current, 'FAILED', { reason: err.message, error: recorded(err) });
      // The refused run is audited as the operation, beside the request's end: nothing ran, and why.
      await writeAudit(m, {
        door: 'activity',
        action: row.operation,
        outcome: 'refused',
        reason: err.auditReason ?? err.message,
        workspaceId: row.workspace_id,
        keyId: row.requested_by_key,
        actorUserId: row.decided_by,
        requestId: `approval:${approvalId}`,
        details: { approval_id: approvalId, ...recorded(err) },
      });
    });
  }
  return approvalView((await approvals.find(approvalId))!);
}
