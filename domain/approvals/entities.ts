import type { Snapshot } from '../kernel/effect';
import { clockDefault, entity, inWorkspace, oneOfCheck, uuidKey } from '../kernel/entity';

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

/**
 * Why an approved request was refused when it ran: as the operation refused it, or (`refused_by:
 * 'gate'`) because what was approved no longer stood (the target changed, the requester lost the
 * authority they asked with, the request predates snapshots), so the operation never ran.
 */
export type RecordedError = {
  code: string;
  message: string;
  field?: string;
  refused_by?: 'gate';
  changed?: string[];
};

/** How a decision was made: a member's passkey in the console, or an operator at the admin CLI. */
export const DECIDED_VIA = ['passkey', 'operator'] as const;
type DecidedVia = (typeof DECIDED_VIA)[number];

/** What an operator's break-glass decision records of who sent it (`approval approve|reject --as`). */
type OperatorAsserted = { os_user: string; host: string };

export type Approval = {
  id: string;
  workspace_id: string;
  operation: string;
  input: Record<string, unknown>;
  /** A fingerprint of the validated arguments: the same key asking the same thing finds its request. */
  input_hash: Buffer;
  summary: string;
  /**
   * What the call will do as the approver sees it (its bound parts, what was counted, and their digest),
   * taken as it parked; null only for requests parked before snapshots existed, which never run.
   */
  effect: Snapshot | null;
  requested_by_key: string;
  requested_by_user: string;
  status: ApprovalStatus;
  decided_by: string | null;
  decided_at: Date | null;
  /**
   * How the decision was made (null until decided, and for decisions recorded before it was kept): a
   * member's `passkey`, with the credential, the signed assertion as the browser sent it and the
   * snapshot digest it approved; or an `operator` at the admin CLI, asserting it in the member's name,
   * with the operating system user and host that sent it.
   */
  decided_via: DecidedVia | null;
  decided_credential: string | null;
  decided_assertion: Record<string, unknown> | null;
  decided_digest: string | null;
  operator_asserted: OperatorAsserted | null;
  reason: string | null;
  outcome: unknown;
  error: RecordedError | null;
  expires_at: Date;
  created_at: Date;
  finished_at: Date | null;
};
export const ApprovalEntity = entity<Approval>({
  name: 'Approval',
  tableName: 'approvals',
  columns: {
    id: uuidKey('approvals'),
    workspace_id: { type: 'uuid' },
    operation: { type: 'text' },
    input: { type: 'jsonb' },
    input_hash: { type: 'bytea' },
    summary: { type: 'text' },
    effect: { type: 'jsonb', nullable: true },
    requested_by_key: { type: 'uuid' },
    requested_by_user: { type: 'uuid' },
    status: { type: 'text', default: 'PENDING' },
    decided_by: { type: 'uuid', nullable: true },
    decided_at: { type: 'timestamptz', nullable: true },
    decided_via: { type: 'text', nullable: true },
    decided_credential: { type: 'text', nullable: true },
    decided_assertion: { type: 'jsonb', nullable: true },
    decided_digest: { type: 'text', nullable: true },
    operator_asserted: { type: 'jsonb', nullable: true },
    reason: { type: 'text', nullable: true },
    outcome: { type: 'jsonb', nullable: true },
    error: { type: 'jsonb', nullable: true },
    expires_at: { type: 'timestamptz' },
    created_at: clockDefault,
    finished_at: { type: 'timestamptz', nullable: true },
  },
  relations: inWorkspace('approvals'),
  checks: [
    oneOfCheck('approvals', 'status', APPROVAL_STATUSES),
    oneOfCheck('approvals', 'decided_via', DECIDED_VIA),
    // A decision's evidence comes whole: a passkey's credential, assertion and digest, or the operator's word.
    {
      name: 'approvals_decided_evidence_check',
      expression:
        "((decided_via IS NULL) OR ((decided_via = 'passkey'::text) AND (decided_credential IS NOT NULL) AND (decided_assertion IS NOT NULL) AND (decided_digest IS NOT NULL)) OR ((decided_via = 'operator'::text) AND (operator_asserted IS NOT NULL)))",
    },
  ],
  indices: [
    // The same key asking the same thing while it waits gets the same request back.
    {
      name: 'approvals_pending',
      columns: ['requested_by_key', 'operation', 'input_hash'],
      unique: true,
      where: "(status = 'PENDING'::text)",
    },
    // Newest first (DESC; the migration made them).
    { name: 'approvals_workspace', columns: ['workspace_id', 'created_at'], synchronize: false },
    { name: 'approvals_key', columns: ['requested_by_key', 'created_at'], synchronize: false },
  ],
});
