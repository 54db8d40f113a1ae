import * as yup from 'yup';
import { notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation, type OperationContext } from '../../kernel/operation';
import type { Requirement } from '../../kernel/permissions';
import { pageSize } from '../../kernel/validate';
import { APPROVAL_COLUMNS, APPROVAL_STATUSES, approvalView, type ApprovalRow } from '../rows';

/** Any key may follow what it parked; only its own requests are visible to it. */
const READ: Requirement = { scope: 'business:read', minRole: 'viewer' };

/** A key sees the requests it parked; the operator sees the workspace's. */
const ownKey = (ctx: OperationContext) => (ctx.actor.type === 'key' ? ctx.actor.principal.keyId : null);

export const getApproval = defineOperation({
  name: 'approval.get',
  title: 'Check an approval request',
  description:
    'What became of a request this key parked for approval: PENDING (waiting for a person), EXECUTED (approved and done, with its outcome), FAILED (approved but refused when run, with the reason), REJECTED (with the reason) or EXPIRED (nobody decided within 7 days).',
  returns: 'The approval request.',
  requirement: READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({
    approvalId: describe(
      yup.string().uuid('approvalId must be a UUID').required('approvalId is required'),
      'The approval_id a gated call answered with.',
    ),
  }),
  summary: (i) => `Check approval request ${i.approvalId}`,
  run: async (ctx, { approvalId }) => {
    const [row] = await ctx.m.query<ApprovalRow[]>(
      `SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id = $1
          AND ($2::uuid IS NULL OR workspace_id = $2) AND ($3::uuid IS NULL OR requested_by_key = $3)`,
      [approvalId, ctx.workspaceId ?? null, ownKey(ctx)],
    );
    if (!row) throw notFound('approval request');
    return approvalView(row);
  },
});

export const listApprovals = defineOperation({
  name: 'approval.list',
  title: 'List approval requests',
  description:
    'The approval requests this key parked, newest first, optionally only those with one status, so the assistant can tell its user what became of them.',
  returns: '{ data: [approval], count }.',
  requirement: READ,
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({
    status: describe(
      yup.string().oneOf([...APPROVAL_STATUSES], `status must be one of ${APPROVAL_STATUSES.join(', ')}`),
      'Only requests with this status.',
    ),
    limit: describe(pageSize(100, 25), 'How many, 1 to 100 (default 25).'),
  }),
  summary: () => 'List approval requests',
  run: async (ctx, { status, limit }) => {
    const rows = await ctx.m.query<ApprovalRow[]>(
      `SELECT ${APPROVAL_COLUMNS} FROM approvals
        WHERE workspace_id = $1 AND ($2::uuid IS NULL OR requested_by_key = $2) AND ($3::text IS NULL OR status = $3)
        ORDER BY created_at DESC, id DESC LIMIT $4`,
      [ctx.workspaceId, ownKey(ctx), status ?? null, limit],
    );
    return { data: rows.map(approvalView), count: rows.length };
  },
});
