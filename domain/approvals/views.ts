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
 * reads in `approval show`, which stay in the row.
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
  reason: a.reason,
  outcome: a.outcome ?? null,
  error: a.error,
  expires_at: a.expires_at.toISOString(),
  created_at: a.created_at.toISOString(),
  finished_at: iso(a.finished_at),
});
export type ApprovalView = ReturnType<typeof approvalView>;
