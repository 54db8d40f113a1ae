import { DomainError } from '../kernel/errors';
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
export const APPROVER_ROLE = 'admin' as const;
