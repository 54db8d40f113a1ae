import { DomainError } from '../kernel/errors';
import type { Decision } from '../kernel/gate';
import { roleRefusal, type Role } from '../kernel/permissions';
import type { Approval } from './entities';
import type { ApprovalStatus } from './views';

/**
 * Where a request can go from each state. A person decides a PENDING one (or nobody does, and it
 * expires; or the key that parked it withdraws it); an APPROVED one runs once and ends EXECUTED or
 * FAILED. Every other state is final.
 */
const MOVES: Record<ApprovalStatus, readonly ApprovalStatus[]> = {
  PENDING: ['APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED'],
  APPROVED: ['EXECUTED', 'FAILED'],
  REJECTED: [],
  EXPIRED: [],
  CANCELLED: [],
  EXECUTED: [],
  FAILED: [],
};

export const canMove = (from: ApprovalStatus, to: ApprovalStatus) => MOVES[from].includes(to);

/** The refusal of a move the request's state no longer allows: says what it is now. */
export function requireMove(from: ApprovalStatus, to: ApprovalStatus): void {
  if (canMove(from, to)) return;
  throw new DomainError(
    'conflict',
    from === 'PENDING'
      ? `This request is waiting for a decision; it cannot become ${to}.`
      : `This request is no longer waiting for a decision: it is ${from}.`,
  );
}

/** Only an admin or owner of the request's workspace may decide it; the run checks the approver again. */
const APPROVER_ROLE = 'admin' as const;

/** What a workspace asks of its approvers (`workspace approvals --distinct true|false`). */
export type ApprovalPolicy = { distinct: boolean };

/** Why someone may not make a decision: a reason a person reads, and what the audit row adds. */
export type DeciderRefusal = { reason: string; detail: string };

/**
 * Who may decide a request: a live admin or owner of its workspace; and, to approve it where the
 * workspace requires a second person, not the member who owns the key that asked (rejecting stays open
 * to them: it only stops what they asked). Answers why not, or undefined when they may. The one rule:
 * the decision, `approval show` and the approved run all ask it.
 */
export function deciderRefusal(
  decider: { userId: string; role: Role | null } | undefined,
  request: Pick<Approval, 'requested_by_user'>,
  decision: Decision['decision'],
  policy: ApprovalPolicy,
): DeciderRefusal | undefined {
  const role = roleRefusal(decider?.role ?? null, APPROVER_ROLE);
  if (!decider || role)
    return { reason: 'only an admin or owner of its workspace may', detail: role ?? 'not a member' };
  if (decision === 'approve' && policy.distinct && decider.userId === request.requested_by_user)
    return {
      reason: 'the workspace requires a second person, and this member owns the key that asked',
      detail: 'self-approval with distinct approvers required',
    };
  return undefined;
}
