import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { boolean, object } from '../../kernel/shapes';
import { workspacesIn } from '../repository/workspaces';

/**
 * Whether approving takes a second person: with `distinct`, the member who owns the key that parked a
 * request may not approve it (they may still reject it); another admin or owner must. The rule itself
 * is the approvals area's (`deciderRefusal`), which reads this setting.
 */
export const setApprovalPolicy = defineOperation({
  name: 'workspace.set_approval_policy',
  title: 'Require a second person to approve',
  description:
    "Sets whether approving an assistant's parked request takes a second person: with distinct true, the member who owns the key that asked may not approve it (the refusal is audited), and another admin or owner must; they may still reject it. False by default, so a workspace with one admin keeps working.",
  returns: '{ distinct }: the policy now in force.',
  requirement: { scope: 'business:write', minRole: 'admin' },
  reach: 'workspace',
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
  // Text, not a boolean: the CLI makes a boolean field a switch, and turning the rule off must read as
  // plainly as turning it on (`--distinct false`).
  input: yup.object({
    distinct: describe(
      yup
        .string()
        .required('distinct is required: true or false')
        .oneOf(['true', 'false'], 'distinct must be true or false'),
      'true: the owner of the key that asked may not approve its request; false: any admin or owner may.',
    ),
  }),
  output: object({ distinct: boolean }),
  doors: { admin: { command: 'workspace approvals', flags: (f) => ({ distinct: f.distinct }) } },
  summary: (i) =>
    i.distinct === 'true'
      ? 'Require a second person to approve'
      : 'Let any admin or owner approve, the requester too',
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const distinct = i.distinct === 'true';
    await workspacesIn(ctx.data).setDistinctApprover(workspaceId, distinct);
    ctx.audit(workspaceId, { distinct });
    return { distinct };
  },
});
