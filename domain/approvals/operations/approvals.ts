import * as yup from 'yup';
import { notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation, type OperationContext } from '../../kernel/operation';
import type { Requirement } from '../../kernel/permissions';
import {
  arrayOf,
  dateTime,
  integer,
  nullable,
  object,
  oneOf,
  openObject,
  page,
  string,
  uuid,
} from '../../kernel/shapes';
import { emailSchema, pageSize } from '../../kernel/validate';
import { parkedOperation } from '../../kernel/gate';
import { withdrawApproval } from '../lifecycle';
import { approvalText, showApproval as shown, type ShownApproval } from '../show';
import { approvalsIn } from '../repository';
import { APPROVAL_STATUSES, approvalView } from '../views';

/** Any key may follow what it parked; only its own requests are visible to it. */
const READ: Requirement = { scope: 'business:read', minRole: 'viewer' };
/** Deciding is for an admin or owner of the request's workspace, checked when the workflow records it. */
const DECIDE: Requirement = { scope: 'business:write', minRole: 'admin' };

/** A key sees the requests it parked; the operator sees the workspace's. */
const ownKey = (ctx: OperationContext) => (ctx.actor.type === 'key' ? ctx.actor.principal.keyId : undefined);

const SHA256 = string({ pattern: '^[0-9a-f]{64}$', maxLength: 64 });

const APPROVAL_FIELDS = {
  id: uuid,
  status: oneOf(APPROVAL_STATUSES),
  operation: string(),
  summary: string(),
  // What the call will do, taken as it parked (kernel/effect.ts); null for requests parked before snapshots.
  effect: nullable(
    object(
      {
        bound: openObject(
          "The named parts that must be the same when the approved call runs, as they stood (a campaign's steps and audience, an agent's review_level and limits).",
        ),
        counted: {
          type: 'object',
          additionalProperties: integer({ minimum: 0 }),
          description: "What was counted as it parked, shown but not bound (the audience's size then).",
        },
        shown: openObject('What the approver also reads that follows from the input and the bound parts.'),
        members: {
          type: 'object',
          additionalProperties: object({ count: integer({ minimum: 0 }), digest: SHA256 }),
          description:
            "Whom it reaches, counted as it parked (a campaign's audience: its leads), by count and the SHA-256 of their ids: the approved run reaches only these, those that still qualify.",
        },
        digest: { ...SHA256, description: 'SHA-256 of the bound parts.' },
      },
      { optional: ['counted', 'shown', 'members'] },
    ),
  ),
  requested_by: object({ key_id: uuid, user_id: uuid }),
  decided_by: nullable(uuid),
  decided_at: nullable(dateTime),
  reason: nullable(string()),
  outcome: nullable(
    openObject("What the approved call answered (EXECUTED): the operation's own answer; null until then."),
  ),
  error: nullable(
    object(
      {
        code: string(),
        message: string(),
        field: string(),
        refused_by: oneOf(['gate']),
        changed: arrayOf(string()),
      },
      { optional: ['field', 'refused_by', 'changed'] },
    ),
  ),
  expires_at: dateTime,
  created_at: dateTime,
  finished_at: nullable(dateTime),
};
const APPROVAL = object(APPROVAL_FIELDS, { title: 'ApprovalRequest' });

const approvalId = describe(
  yup.string().uuid('${path} must be a UUID').required('${path} is required'),
  'The approval_id a gated call answered with.',
);

export const getApproval = defineOperation({
  name: 'approval.get',
  title: 'Check an approval request',
  description:
    'What became of a request this key parked for approval: PENDING (waiting for a person), EXECUTED (approved and done, with its outcome), FAILED (approved but refused when run, with the reason), REJECTED (with the reason), EXPIRED (nobody decided within 7 days) or CANCELLED (withdrawn with approval.cancel).',
  returns: 'The approval request.',
  requirement: READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({ approvalId }),
  output: APPROVAL,
  doors: { mcp: true },
  summary: (i) => `Check approval request ${i.approvalId}`,
  run: async (ctx, i) => {
    const row = await approvalsIn(ctx.data).find(i.approvalId, { key: ownKey(ctx) });
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
    limit: describe(pageSize(100), 'How many, 1 to 100 (default 25).'),
  }),
  output: page(APPROVAL, { title: 'ApprovalList', max: 100 }),
  doors: {
    mcp: true,
    admin: {
      command: 'approval list',
      flags: (f) => ({ status: f.status, limit: f.limit }),
      present: (out: { data: unknown }) => out.data,
    },
  },
  summary: () => 'List approval requests',
  run: async (ctx, { status, limit }) => {
    const rows = await approvalsIn(ctx.data).list({ key: ownKey(ctx), status, limit });
    return { data: rows.map(approvalView), count: rows.length };
  },
});

/** The key that parked a request takes it back before anyone decides; a later decision is refused. */
export const cancelApproval = defineOperation({
  name: 'approval.cancel',
  title: 'Withdraw an approval request',
  description:
    'Withdraws a request this key parked that is still waiting for a person: it will never run, and an approval that comes later is refused. A request already decided cannot be withdrawn.',
  returns: 'The approval request, now CANCELLED.',
  requirement: READ,
  reach: 'record',
  changes: true,
  destructive: false,
  idempotent: false,
  gated: false,
  input: yup.object({ approvalId }),
  output: APPROVAL,
  doors: { mcp: true },
  summary: (i) => `Withdraw approval request ${i.approvalId}`,
  run: async (ctx, i) => {
    const row = await approvalsIn(ctx.data).find(i.approvalId, { lock: true, key: ownKey(ctx) });
    if (!row) throw notFound('approval request');
    ctx.audit(row.workspace_id, { approval_id: row.id, operation: row.operation });
    const withdrawn = await withdrawApproval(ctx.data, row);
    const gate = ctx.services.approvals;
    if (gate) ctx.afterCommit(() => gate.withdrawn(row.id));
    return withdrawn;
  },
});

/**
 * What an approver reads before deciding: the snapshot of the effect in plain words, whom it reaches,
 * who asked and whether that key and its owner may still ask it, whether the target changed since, and
 * whether the person named may approve it.
 */
export const showApproval = defineOperation({
  name: 'approval.show',
  title: 'Show an approval request in full',
  description:
    "One approval request as an approver should read it before deciding: its summary; what it will do as it stood when asked (every campaign step with its subject and body, placeholders shown, the audience and its size then, window and channel; an agent's review level, limits, sources and cadence; the system and account of a connection); whom it reaches (a campaign's audience as counted when asked, with the first names and addresses); who asked (key name, owner) and whether that key and owner are still valid; whether the target changed since (approving a changed request is refused; an audience whose people changed is reached only where they still qualify); and, for the person named in as, whether they may approve it (the workspace may require a second person).",
  returns:
    'The approval request with `requester`, `members`, `changed_since_requested`, `members_since_requested`, `second_person_required` and `decider`; the admin command prints it as text.',
  requirement: DECIDE,
  reach: 'record',
  operatorOnly: true,
  ...READ_ONLY,
  input: yup.object({
    id: describe(approvalId, 'The approval request id.'),
    as: describe(emailSchema, 'The email of the admin or owner who would decide: says whether they may.'),
  }),
  output: object(
    {
      ...APPROVAL_FIELDS,
      requester: object({
        key_id: uuid,
        key_name: nullable(string()),
        key_prefix: nullable(string()),
        key_state: oneOf(['live', 'revoked', 'expired', 'missing']),
        owner_user_id: uuid,
        owner_email: nullable(string()),
        owner_role: nullable(string()),
        refusal: nullable(string()),
        still_valid: { type: 'boolean' },
      }),
      members: nullable({
        type: 'object',
        additionalProperties: object({
          count: integer({ minimum: 0 }),
          sample: arrayOf(object({ name: nullable(string()), address: string() })),
        }),
        description:
          'Whom it reaches, as counted when asked: how many, and the first few names and addresses.',
      }),
      changed_since_requested: nullable(arrayOf(string())),
      members_since_requested: nullable({
        type: 'object',
        additionalProperties: object({
          left: integer({ minimum: 0 }),
          joined: integer({ minimum: 0 }),
          still: integer({ minimum: 0 }),
        }),
        description:
          'Per member set, while it waits: how many counted no longer qualify (left), how many qualify now that were not counted (joined, left out by an approval), and how many counted still qualify (whom approving it reaches).',
      }),
      second_person_required: {
        type: 'boolean',
        description:
          'The workspace requires a second person: the owner of the key that asked may not approve it.',
      },
      decider: nullable(
        object({ email: string(), may_decide: { type: 'boolean' }, refusal: nullable(string()) }),
      ),
    },
    { title: 'ApprovalShown' },
  ),
  doors: {
    admin: {
      command: 'approval show',
      flags: (f) => ({ id: f.id, as: f.as }),
      present: (out: ShownApproval) => approvalText(out),
    },
  },
  summary: (i) => `Show approval request ${i.id}`,
  run: async (ctx, i) => {
    const row = await approvalsIn(ctx.data).find(i.id);
    if (!row) throw notFound('approval request');
    return shown(ctx.data, row, parkedOperation(row.operation), i.as);
  },
});

/** An admin's or owner's decision, from the operator door; the request's workflow records and runs it. */
const decide = (decision: 'approve' | 'reject') =>
  defineOperation({
    name: `approval.${decision}`,
    title: decision === 'approve' ? 'Approve a parked request' : 'Reject a parked request',
    description:
      decision === 'approve'
        ? 'Approves a request an assistant parked, on the authority of the admin or owner named: it runs once, and the answer says how it ended (EXECUTED with its result, or FAILED with the reason).'
        : 'Rejects a request an assistant parked, with a reason: it never runs.',
    returns: 'The approval request as it ended.',
    requirement: DECIDE,
    reach: 'record',
    operatorOnly: true,
    changes: true,
    inWorkflow: true,
    destructive: false,
    idempotent: false,
    gated: false,
    input: yup.object({
      id: describe(approvalId, 'The approval request id.'),
      as: describe(
        emailSchema.required('as is required: the email of the admin or owner deciding'),
        'The email of the admin or owner deciding.',
      ),
      reason: describe(
        yup.string().trim().max(500, 'reason must be at most 500 characters'),
        'Why, for the record (and the assistant).',
      ),
    }),
    output: APPROVAL,
    doors: {
      admin: {
        command: `approval ${decision}`,
        flags: (f) => ({ id: f.id, as: f.as, reason: f.reason }),
      },
    },
    summary: (i) => `${decision === 'approve' ? 'Approve' : 'Reject'} approval request ${i.id} as ${i.as}`,
    run: async (ctx, i) => {
      if (!(await approvalsIn(ctx.data).find(i.id))) throw notFound('approval request');
      const gate = ctx.services.approvals;
      if (!gate) throw new Error('deciding needs the approval gate at this door');
      return gate.decide(i.id, { decision, approverEmail: i.as, reason: i.reason });
    },
  });
export const approveApproval = decide('approve');
export const rejectApproval = decide('reject');
