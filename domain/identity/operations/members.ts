import * as yup from 'yup';
import { authorityLost } from '../../kernel/gate';
import { describe } from '../../kernel/json-schema';
import { DomainError, notFound } from '../../kernel/errors';
import { WRITE, defineOperation } from '../../kernel/operation';
import { ROLES, type Requirement, type Role } from '../../kernel/permissions';
import { emailSchema } from '../../kernel/validate';
import { MEMBERSHIP, membershipView } from '../views';
import { membersIn } from '../repository';

/** People and their roles are managed in the application's settings (here, the operator door). */
const MANAGE_MEMBERS: Requirement = { scope: 'business:write', minRole: 'admin' };

const email = describe(emailSchema.required('email is required'), "The person's email address.");
const role = describe(
  yup
    .mixed<Role>()
    .oneOf(ROLES, `role must be one of ${ROLES.join(', ')}`)
    .required('role is required'),
  'viewer < member < admin < owner; keys the person owns act with it from their next call.',
);
const common = { requirement: MANAGE_MEMBERS, reach: 'workspace', operatorOnly: true, ...WRITE } as const;

/** Adds a person (creating the user on first sight) to a workspace with a role. */
export const addMember = defineOperation({
  ...common,
  name: 'member.add',
  title: 'Add a member',
  description: 'Adds a person to the workspace with a role, creating the user on first sight.',
  returns: 'The membership, with user_id.',
  input: yup.object({ email, role }),
  output: MEMBERSHIP,
  doors: { admin: { command: 'member add', flags: (f) => ({ email: f.email, role: f.role }) } },
  summary: (i) => `Add ${i.email} as ${i.role}`,
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const userId = await membersIn(ctx.data).add(i.email, i.role);
    if (!userId) {
      throw new DomainError(
        'conflict',
        `${i.email} is already a member; use member set-role to change the role.`,
      );
    }
    ctx.audit(workspaceId, { email: i.email, role: i.role });
    return membershipView({ workspaceId, userId, email: i.email, role: i.role });
  },
});

/**
 * Changes a member's role; keys they own carry the new role from their next call, and their waiting
 * approval requests that the new role could not have made are withdrawn with the change.
 */
export const setMemberRole = defineOperation({
  ...common,
  name: 'member.set_role',
  title: "Change a member's role",
  description:
    "Changes a member's role; keys the member owns carry the new role from their next call, and approval requests their keys parked that the new role may not make are withdrawn.",
  returns: 'The membership.',
  idempotent: true,
  input: yup.object({ email, role }),
  output: MEMBERSHIP,
  doors: { admin: { command: 'member set-role', flags: (f) => ({ email: f.email, role: f.role }) } },
  summary: (i) => `Make ${i.email} ${i.role}`,
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const row = await membersIn(ctx.data).setRole(i.email, i.role);
    if (!row) throw notFound('member');
    const withdrawn = await authorityLost(ctx, ctx.data, {
      workspaceId,
      userId: row.user_id,
      role: i.role,
      reason: `requester's role lowered to ${i.role}`,
    });
    ctx.audit(workspaceId, { email: i.email, role: i.role, ...withdrawn });
    return membershipView({ workspaceId, userId: row.user_id, email: i.email, role: i.role });
  },
});

/**
 * Removes a member; their keys stay on record but are refused from the next call, and their waiting
 * approval requests are withdrawn with the removal.
 */
export const removeMember = defineOperation({
  ...common,
  name: 'member.remove',
  title: 'Remove a member',
  description:
    'Removes a person from the workspace; keys they own are refused from their next call, and approval requests those keys parked are withdrawn.',
  returns: 'The removed membership, with removed: true.',
  destructive: true,
  input: yup.object({ email }),
  output: MEMBERSHIP,
  doors: { admin: { command: 'member remove', flags: (f) => ({ email: f.email }) } },
  summary: (i) => `Remove ${i.email} from the workspace`,
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const removed = await membersIn(ctx.data).remove(i.email);
    if (!removed) throw notFound('member');
    const withdrawn = await authorityLost(ctx, ctx.data, {
      workspaceId,
      userId: removed.user_id,
      role: null,
      reason: 'requester removed from the workspace',
    });
    ctx.audit(workspaceId, { email: i.email, ...withdrawn });
    return {
      ...membershipView({ workspaceId, userId: removed.user_id, email: i.email, role: removed.role }),
      removed: true,
    };
  },
});
