import type { EntityManager } from 'typeorm';
import type { Principal } from '../kernel/permissions';
import { requestHash } from '../kernel/idempotency';
import { APPROVAL_COLUMNS, APPROVAL_TTL_DAYS, type ApprovalRow } from './rows';

/** What a key's gated call answers: nothing has happened; a person must approve. */
export type Parked = {
  status: 'pending_approval';
  approval_id: string;
  summary: string;
  expires_at: string;
  /** False when the same key asked the same thing while it waited: the same request, not a new one. */
  created: boolean;
};

/**
 * Records a gated call as a pending approval request, in the caller's transaction. The same key
 * asking the same operation with the same arguments while one waits gets that one back.
 */
export async function parkRequest(
  m: Pick<EntityManager, 'query'>,
  call: {
    operation: string;
    input: Record<string, unknown>;
    summary: string;
    workspaceId: string;
    principal: Principal;
  },
): Promise<{ parked: Parked; row: ApprovalRow }> {
  const hash = requestHash(call.input);
  const pending = () =>
    m.query<ApprovalRow[]>(
      `SELECT ${APPROVAL_COLUMNS} FROM approvals
        WHERE requested_by_key = $1 AND operation = $2 AND input_hash = $3 AND status = 'PENDING'`,
      [call.principal.keyId, call.operation, hash],
    );
  const [inserted] = await m.query<ApprovalRow[]>(
    `INSERT INTO approvals (workspace_id, operation, input, input_hash, summary, requested_by_key, requested_by_user, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, clock_timestamp() + make_interval(days => $8))
     ON CONFLICT (requested_by_key, operation, input_hash) WHERE status = 'PENDING' DO NOTHING
     RETURNING ${APPROVAL_COLUMNS}`,
    [
      call.workspaceId,
      call.operation,
      JSON.stringify(call.input),
      hash,
      call.summary,
      call.principal.keyId,
      call.principal.userId,
      APPROVAL_TTL_DAYS,
    ],
  );
  const row = inserted ?? (await pending())[0];
  if (!row) throw new Error('approval request neither inserted nor found');
  return {
    row,
    parked: {
      status: 'pending_approval',
      approval_id: row.id,
      summary: row.summary,
      expires_at: row.expires_at.toISOString(),
      created: inserted !== undefined,
    },
  };
}
