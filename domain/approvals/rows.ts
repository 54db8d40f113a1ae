import type { EntityManager } from 'typeorm';

export const APPROVAL_STATUSES = [
  'PENDING',
  'APPROVED',
  'REJECTED',
  'EXPIRED',
  'CANCELLED',
  'EXECUTED',
  'FAILED',
] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** How long a parked request waits for a person before it ends EXPIRED. */
export const APPROVAL_TTL_DAYS = 7;

/** Why an approved request was refused when it ran, as the operation refused it. */
export type RecordedError = { code: string; message: string; field?: string };

export type ApprovalRow = {
  id: string;
  workspace_id: string;
  operation: string;
  input: Record<string, unknown>;
  summary: string;
  requested_by_key: string;
  requested_by_user: string;
  status: ApprovalStatus;
  decided_by: string | null;
  decided_at: Date | null;
  reason: string | null;
  outcome: unknown;
  error: RecordedError | null;
  expires_at: Date;
  created_at: Date;
  finished_at: Date | null;
};

export const APPROVAL_COLUMNS = `id, workspace_id, operation, input, summary, requested_by_key, requested_by_user, status,
  decided_by, decided_at, reason, outcome, error, expires_at, created_at, finished_at`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** An approval request as every door shows it. */
export const approvalView = (a: ApprovalRow) => ({
  id: a.id,
  status: a.status,
  operation: a.operation,
  summary: a.summary,
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

/** Temporal's id for the request's workflow: readable in the Web UI, refused if started twice. */
export const approvalWorkflowId = (approvalId: string) => `approval:${approvalId}`;

/**
 * An approval request by id, as recorded; `lock` holds it for the caller's transaction. `key` confines
 * the lookup to the requests one key parked (an assistant sees only its own).
 */
export async function findApproval(
  m: Pick<EntityManager, 'query'>,
  approvalId: string,
  opts: { lock?: boolean; workspaceId?: string; key?: string } = {},
): Promise<ApprovalRow | undefined> {
  const [row] = await m.query<ApprovalRow[]>(
    `SELECT ${APPROVAL_COLUMNS} FROM approvals
      WHERE id = $1 AND ($2::uuid IS NULL OR workspace_id = $2) AND ($3::uuid IS NULL OR requested_by_key = $3)
      ${opts.lock ? 'FOR UPDATE' : ''}`,
    [approvalId, opts.workspaceId ?? null, opts.key ?? null],
  );
  return row;
}
