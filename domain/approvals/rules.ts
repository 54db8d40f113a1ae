import { gateRefusal, snapshotIntact } from '../kernel/effect';
import { DomainError } from '../kernel/errors';
import type { Decision } from '../kernel/gate';
import { roleRefusal, type Requirement, type Role } from '../kernel/permissions';
import type { KeyStanding } from '../identity';
import type { Approval } from './entities';
import { requesterRefusal } from './requester';
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

/** The refusal of a move the request's state does not allow, saying what it is now; undefined if it does. */
const moveRefusal = (from: ApprovalStatus, to: ApprovalStatus): DomainError | undefined =>
  canMove(from, to)
    ? undefined
    : new DomainError(
        'conflict',
        from === 'PENDING'
          ? `This request is waiting for a decision; it cannot become ${to}.`
          : `This request is no longer waiting for a decision: it is ${from}.`,
      );

/** Refuses a move the request's state no longer allows, saying what it is now. */
export function requireMove(from: ApprovalStatus, to: ApprovalStatus): void {
  const refusal = moveRefusal(from, to);
  if (refusal) throw refusal;
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

/** Who decides and what the workspace requires of them, read once in the step's transaction. */
export type Standing = { decider: { userId: string; role: Role | null } | undefined; policy: ApprovalPolicy };

/**
 * A step of a decision: a person's decision as a door handed it over (with whether this deployment
 * accepts an operator's), or the approved request's run (with the standing, now, of the key that asked,
 * and what its operation requires).
 */
export type Step =
  { decide: Decision; operatorDecisions: boolean } | { run: Requirement; requester: KeyStanding | undefined };

/** The break-glass's refusal, naming the setting that allows it. */
const OPERATOR_DECISIONS_OFF =
  'An operator may not decide approval requests in production unless APPROVALS_OPERATOR_DECIDE=true: `approval approve|reject --as` is a break-glass, recorded as operator-asserted. Members decide in the console with their passkey.';

const short = (digest: string | undefined) => (digest ? `sha256:${digest.slice(0, 12)}` : 'no snapshot');

/**
 * Why a decision's proof does not hold for this request, or undefined when it does: an operator's word
 * where the deployment does not take it; a passkey's signature over another snapshot than the one this
 * request waits with (the member approved something else: another request, or an older version).
 */
function proofRefusal(row: Approval, d: Decision, operatorDecisions: boolean): DomainError | undefined {
  if (d.via === 'operator')
    return operatorDecisions
      ? undefined
      : new DomainError(
          'forbidden',
          OPERATOR_DECISIONS_OFF,
          {},
          'operator decisions are off (APPROVALS_OPERATOR_DECIDE)',
        );
  if (row.effect && d.digest === row.effect.digest) return undefined;
  return new DomainError(
    'forbidden',
    `This decision was signed for ${short(d.digest)}, not for this request as it waits (${short(row.effect?.digest)}): the approver approved something else, so nothing was recorded.`,
    {},
    'approver: signed digest differs from the snapshot',
  );
}

/**
 * The one check of a decision's step, made once on the request as its step locked it: the request's
 * state allows the step (still pending to be decided, approved to be run); to decide, the decision's
 * proof holds (`proofRefusal`: a passkey's signature over this request's snapshot, or an operator's
 * word where the deployment takes it); the person may decide it (`deciderRefusal`, asked again when the
 * approved request runs: a demotion or a policy set in between counts); and, to run, the key that asked
 * may still ask it and what was approved is on record, whole. Answers the refusal, or undefined when
 * the step goes on. That the bound parts are unchanged is the runner's check, made under the run's own
 * lock on the record (`approved` in domain/kernel/runner.ts).
 */
export function stepRefusal(row: Approval, step: Step, standing: Standing): DomainError | undefined {
  if ('decide' in step) {
    const d = step.decide;
    const moved = moveRefusal(row.status, d.decision === 'approve' ? 'APPROVED' : 'REJECTED');
    if (moved) return moved;
    const unproven = proofRefusal(row, d, step.operatorDecisions);
    if (unproven) return unproven;
    const refusal = deciderRefusal(standing.decider, row, d.decision, standing.policy);
    const who = d.via === 'operator' ? d.approverEmail : 'This member';
    return refusal
      ? new DomainError(
          'forbidden',
          `${who} may not decide this request: ${refusal.reason}.`,
          {},
          `approver: ${refusal.detail}`,
        )
      : undefined;
  }
  const moved = moveRefusal(row.status, 'EXECUTED');
  if (moved) return moved;
  const approver = deciderRefusal(standing.decider, row, 'approve', standing.policy);
  if (approver)
    return new DomainError(
      'forbidden',
      `The approver may no longer approve it: ${approver.reason}.`,
      {},
      `approver: ${approver.detail}`,
    );
  const lost = requesterRefusal(step.requester, step.run);
  if (lost) return gateRefusal(`${lost}: the request no longer stands; nothing was done.`);
  if (!row.effect)
    return gateRefusal(
      'approval predates snapshots: nobody can tell what was approved, so it does not run; ask for approval again.',
    );
  if (!snapshotIntact(row.effect))
    return gateRefusal('the approved snapshot does not match its digest; nothing was done.');
  return undefined;
}
