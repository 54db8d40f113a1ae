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

/** Why an approved request was refused when it ran, as the operation refused it. */
export type RecordedError = { code: string; message: string; field?: string };

export type Approval = {
  id: string;
  workspace_id: string;
  operation: string;
  input: Record<string, unknown>;
  /** A fingerprint of the validated arguments: the same key asking the same thing finds its request. */
  input_hash: Buffer;
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
    requested_by_key: { type: 'uuid' },
    requested_by_user: { type: 'uuid' },
    status: { type: 'text', default: 'PENDING' },
    decided_by: { type: 'uuid', nullable: true },
    decided_at: { type: 'timestamptz', nullable: true },
    reason: { type: 'text', nullable: true },
    outcome: { type: 'jsonb', nullable: true },
    error: { type: 'jsonb', nullable: true },
    expires_at: { type: 'timestamptz' },
    created_at: clockDefault,
    finished_at: { type: 'timestamptz', nullable: true },
  },
  relations: inWorkspace('approvals'),
  checks: [oneOfCheck('approvals', 'status', APPROVAL_STATUSES)],
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
