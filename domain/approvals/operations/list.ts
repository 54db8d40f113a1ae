import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { roleRefusal } from '../../kernel/permissions';
import { page } from '../../kernel/shapes';
import { pageSize } from '../../kernel/validate';
import { approvalsIn } from '../repository/approvals';
import { DECIDE, READ, ownKey } from '../requirements';
import { APPROVAL } from '../schemas';
import { APPROVAL_STATUSES, approvalView } from '../views';

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
    console: true,
    admin: {
      command: 'approval list',
      flags: (f) => ({ status: f.status, limit: f.limit }),
      present: (out: { data: unknown }) => out.data,
    },
  },
  summary: () => 'List approval requests',
  run: async (ctx, { status, limit }) => {
    // A member reads the workspace's requests, every key's: only one who may decide them may.
    if (ctx.actor.type === 'member') {
      const refusal = roleRefusal(ctx.actor.role, DECIDE.minRole);
      if (refusal) throw new DomainError('forbidden', 'forbidden', {}, `approval inbox: ${refusal}`);
    }
    const rows = await approvalsIn(ctx.data).list({ key: ownKey(ctx), status, limit });
    return { data: rows.map(approvalView), count: rows.length };
  },
});
