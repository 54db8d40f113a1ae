import { snapshotView } from '../kernel/effect';
import type { Approval } from './entities';

export { APPROVAL_STATUSES, type ApprovalStatus, type RecordedError } from './entities';

/** The reason a request withdrawn by the assistant that asked carries (others name the lost authority). */
export const WITHDRAWN_BY_ASSISTANT = 'Withdrawn by the assistant that asked.';

/** How long a parked request waits for a person before it ends EXPIRED. */
export const APPROVAL_TTL_DAYS = 7;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * An approval request as every door shows it, and as its workflow carries it: a member set (a
 * campaign's audience) as its count and digest, never its ids or the names and addresses an approver
 * reads in `approval show`, which stay in the row. How it was decided is shown with it (a member's
 * passkey, with the credential and the digest approved; or operator-asserted, with the operating system
 * user and host); the signed assertion itself only in `approval show`.
 */
export const approvalView = (a: Approval) => ({
  id: a.id,
  status: a.status,
  operation: a.operation,
  summary: a.summary,
  effect: a.effect && snapshotView(a.effect),
  requested_by: { key_id: a.requested_by_key, user_id: a.requested_by_user },
  decided_by: a.decided_by,
  decided_at: iso(a.decided_at),
  decided_via: a.decided_via,
  decided_credential: a.decided_credential,
  decided_digest: a.decided_digest,
  operator_asserted: a.operator_asserted,
  reason: a.reason,
  outcome: a.outcome ?? null,
  error: a.error,
  expires_at: a.expires_at.toISOString(),
  created_at: a.created_at.toISOString(),
  finished_at: iso(a.finished_at),
});
export type ApprovalView = ReturnType<typeof approvalView>;
