import type { Data } from '../../kernel/data';
import type { Snapshot } from '../../kernel/effect';
import { ApprovalEntity, type Approval, type ApprovalStatus, type RecordedError } from '../entities';

/** What a decision records of how it was made, in the statement that records the decision. */
export type DecisionEvidence = Pick<
  Approval,
  'decided_via' | 'decided_credential' | 'decided_assertion' | 'decided_digest' | 'operator_asserted'
>;

export type MoveFields = {
  decidedBy?: string;
  evidence?: DecisionEvidence;
  reason?: string;
  outcome?: unknown;
  error?: RecordedError;
};

/** Parked requests. A key reaches only the requests it parked (`key`); the operator any of its workspace's. */
export const approvalsIn = (data: Data) => {
  const rows = data.scoped(ApprovalEntity);
  return {
    find: (id: string, opts: { lock?: boolean; key?: string } = {}) =>
      rows.findOne({ id, ...(opts.key ? { requested_by_key: opts.key } : {}) }, { lock: opts.lock }),

    /** Newest first. */
    list: (opts: { key?: string; status?: ApprovalStatus; limit: number }) =>
      rows.find(
        {
          ...(opts.key ? { requested_by_key: opts.key } : {}),
          ...(opts.status ? { status: opts.status } : {}),
        },
        { order: { created_at: 'DESC', id: 'DESC' }, take: opts.limit },
      ),

    /**
     * Records a pending request, or answers undefined when the same key already waits on the same
     * call. SQL: the guard is the partial unique index on pending requests, which only ON CONFLICT can
     * name; the expiry is measured by the database clock.
     */
    park: async (call: {
      operation: string;
      input: Record<string, unknown>;
      inputHash: Buffer;
      summary: string;
      snapshot: Snapshot;
      keyId: string;
      userId: string;
      days: number;
    }): Promise<Approval | undefined> => {
      const [row] = await data.sql<Approval[]>(
        `INSERT INTO approvals (workspace_id, operation, input, input_hash, summary, requested_by_key, requested_by_user, expires_at, effect)
         VALUES ($1, $2, $3, $4, $5, $6, $7, clock_timestamp() + make_interval(days => $8), $9)
         ON CONFLICT (requested_by_key, operation, input_hash) WHERE status = 'PENDING' DO NOTHING RETURNING *`,
        [
          data.workspaceId,
          call.operation,
          JSON.stringify(call.input),
          call.inputHash,
          call.summary,
          call.keyId,
          call.userId,
          call.days,
          JSON.stringify(call.snapshot),
        ],
      );
      return row;
    },

    /**
     * The waiting requests parked by a key, or by any key of a user, held (`FOR UPDATE`) until the
     * transaction ends, oldest first: a decision racing their withdrawal waits, then finds them ended.
     */
    waitingOf: (who: { keyId?: string; userId?: string }) =>
      rows.find(
        {
          status: 'PENDING',
          ...(who.keyId ? { requested_by_key: who.keyId } : {}),
          ...(who.userId ? { requested_by_user: who.userId } : {}),
        },
        { lock: true, order: { created_at: 'ASC', id: 'ASC' } },
      ),

    /** The request the key waits on for the same call. */
    waiting: (keyId: string, operation: string, inputHash: Buffer) =>
      rows.findOne({ requested_by_key: keyId, operation, input_hash: inputHash, status: 'PENDING' }),

    /** Writes a move the rules allowed: decided moves stamp the decision, final ones the end. */
    move: async (id: string, to: ApprovalStatus, f: MoveFields): Promise<Approval> => {
      const decided = to === 'APPROVED' || to === 'REJECTED';
      const [row] = await rows.update(
        { id },
        {
          status: to,
          ...(f.decidedBy ? { decided_by: f.decidedBy } : {}),
          ...f.evidence,
          ...(decided ? { decided_at: () => 'clock_timestamp()' } : {}),
          ...(f.reason !== undefined ? { reason: f.reason } : {}),
          ...(f.outcome !== undefined ? { outcome: f.outcome } : {}),
          error: f.error ?? null,
          finished_at: to === 'APPROVED' ? null : () => 'clock_timestamp()',
        },
      );
      return row!;
    },

    /**
     * Pending requests of the last hour, past `graceMinutes`, whose workflow may never have started
     * (any workspace: the reconciler's sweep). SQL: the window is measured by the database clock.
     */
    unstarted: (graceMinutes: number, batch: number) =>
      data.sql<Approval[]>(
        `SELECT * FROM approvals
          WHERE status = 'PENDING'
            AND created_at BETWEEN clock_timestamp() - interval '1 hour' AND clock_timestamp() - make_interval(mins => $1)
          ORDER BY created_at LIMIT $2`,
        [graceMinutes, batch],
      ),
  };
};
