import type { EntityManager } from 'typeorm';

export const APPROVAL_STATUSES = [
  'PENDING',
  'APPROVED',
  'REJECTED',
  'EXPIRED',
  'EXECUTED',
  'FAILED',
] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** How long a parked request waits for a person before it ends EXPIRED. */
export const APPROVAL_TTL_DAYS = 7;

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
  expires_at: Date;
  created_at: Date;
  finished_at: Date | null;
};

export const APPROVAL_COLUMNS = `id, workspace_id, operation, input, summary, requested_by_key, requested_by_user, status,
  decided_by, decided_at, reason, outcome, expires_at, created_at, finished_at`;

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
  expires_at: a.expires_at.toISOString(),
  created_at: a.created_at.toISOString(),
  finished_at: iso(a.finished_at),
});
export type ApprovalView = ReturnType<typeof approvalView>;

/** Temporal's id for the request's workflow: readable in the Web UI, refused if started twice. */
export const approvalWorkflowId = (approvalId: string) => `approval:${approvalId}`;

/** An approval request by id, as recorded. */
export async function findApproval(
  m: Pick<EntityManager, 'query'>,
  approvalId: string,
): Promise<ApprovalRow | undefined> {
  const [row] = await m.query<ApprovalRow[]>(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id = $1`, [
    approvalId,
  ]);
  return row;
}
