import type { Actor } from '../kernel/actor';
import { writeAudit } from '../kernel/audit';
import { Data } from '../kernel/data';
import { parkedOperation } from '../kernel/gate';
import { DomainError } from '../kernel/errors';
import type { Services } from '../kernel/operation';
import { runOperation } from '../kernel/runner';
import { keyStanding, roleOf } from '../identity';
import type { Approval, RecordedError } from './entities';
import { lock, move, readApproval } from './lifecycle';
import { approvalsIn } from './repository/approvals';
import { approvalView, type ApprovalView } from './views';
import { policyOf } from './decider';
import { canMove, stepRefusal } from './rules';

/** What a refused run records: the refusal's code, message and field, and whether the gate refused it. */
const recorded = (err: DomainError): RecordedError => ({
  code: err.code,
  message: err.message,
  ...(typeof err.details.field === 'string' ? { field: err.details.field } : {}),
  ...(err.details.refused_by === 'gate' ? { refused_by: 'gate' as const } : {}),
  ...(Array.isArray(err.details.changed) ? { changed: err.details.changed as string[] } : {}),
});

/** The request had already run (a worker that crashed before Temporal heard the result): answer it. */
class AlreadyRan extends Error {}

/**
 * Runs an approved request's operation exactly once, exactly as approved, on the approver's authority
 * (their live role, checked by the runner), and records the outcome in the same transaction as the
 * change. In that transaction, before the operation runs, the request is locked, once, and the step's
 * one check made on it (`stepRefusal`: still approved and not run, the approver still may, the key that
 * asked still may ask it, what was approved on record and whole); the runner then reads the
 * operation's effect again under the lock the run takes, and a bound part that differs from the
 * approved snapshot refuses the run. A re-run finds the outcome recorded and answers it. A refusal
 * ends the request FAILED with the refusal's code and message.
 */
export async function runApproved(services: Services, approvalId: string): Promise<ApprovalView> {
  const { db } = services;
  const approvals = approvalsIn(new Data(db.manager, undefined));
  // Which request, which operation, on whose authority: read to build the run; checked under its lock.
  const row = await approvals.find(approvalId);
  if (!row) throw new Error(`approval ${approvalId} does not exist`);
  const approver = row.decided_by;
  if (!approver) return approvalView(row); // never decided: nothing to run
  const role = await roleOf(new Data(db.manager, row.workspace_id), approver);
  // Audited under the request's workflow, which runs it.
  const requestId = services.jobNames.approval(approvalId);
  const actor: Actor = {
    type: 'member',
    userId: approver,
    workspaceId: row.workspace_id,
    role,
    ctx: {
      door: 'activity',
      requestId,
      actorUserId: approver,
      keyId: row.requested_by_key,
    },
  };
  try {
    const op = parkedOperation(row.operation);
    if (!op) throw new DomainError('not_found', `The operation ${row.operation} no longer exists.`);
    let locked: Approval | undefined;
    await runOperation(services, op, actor, row.input, {
      approved: row.effect ?? undefined,
      auditDetails: {
        approval_id: approvalId,
        approved_by: approver,
        requested_by_key: row.requested_by_key,
        requested_by_user: row.requested_by_user,
        effect_digest: row.effect?.digest,
      },
      // Held to commit: a second run waits here, then finds it executed; a withdrawal waits for the run.
      firstInTransaction: async (m) => {
        const data = new Data(m, row.workspace_id);
        const current = await lock(data, approvalId);
        if (current.status === 'EXECUTED' || current.status === 'FAILED') throw new AlreadyRan();
        const refusal = stepRefusal(
          current,
          { run: op.requirement, requester: await keyStanding(data, current.requested_by_key) },
          { decider: { userId: approver, role }, policy: await policyOf(data, row.workspace_id) },
        );
        if (refusal) throw refusal;
        locked = current;
      },
      alsoInTransaction: async (m, output) => {
        await approvalsIn(new Data(m, row.workspace_id)).move(locked!.id, 'EXECUTED', {
          outcome: output ?? null,
        });
      },
    });
  } catch (err) {
    // Already run (a worker that crashed before Temporal heard): its recorded outcome is the answer.
    if (err instanceof AlreadyRan) return readApproval(db, approvalId);
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
        requestId,
        details: { approval_id: approvalId, ...recorded(err) },
      });
    });
  }
  return readApproval(db, approvalId);
}
