import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { DomainError, notFound } from '../../kernel/errors';
import { defineOperation } from '../../kernel/operation';
import { ROLES, type Requirement, type Role } from '../../kernel/permissions';
import { returning } from '../../kernel/sql';
import { emailSchema } from '../../kernel/validate';
import { MEMBERSHIP } from '../outputs';
import { membershipView } from '../rows';

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
const common = {
  requirement: MANAGE_MEMBERS,
  reach: 'workspace',
  operatorOnly: true,
  changes: true,
  gated: false,
} as const;

/** Adds a person (creating the user on first sight) to a workspace with a role. */
export const addMember = defineOperation({
  ...common,
  name: 'member.add',
  title: 'Add a member',
  description: 'Adds a person to the workspace with a role, creating the user on first sight.',
  returns: 'The membership, with user_id.',
  destructive: false,
  idempotent: false,
  input: yup.object({ email, role }),
  output: MEMBERSHIP,
  doors: { admin: { command: 'member add', flags: (f) => ({ email: f.email, role: f.role }) } },
  summary: (i) => `Add ${i.email} as ${i.role}`,
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const [user] = await ctx.m.query<{ id: string }[]>(
      `INSERT INTO users (email) VALUES ($1) ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email RETURNING id`,
      [i.email],
    );
    const inserted: unknown[] = await ctx.m.query(
      `INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING user_id`,
      [workspaceId, user!.id, i.role],
    );
    if (inserted.length === 0) {
      throw new DomainError(
        'conflict',
        `${i.email} is already a member; use member set-role to change the role.`,
      );
    }
    ctx.audit(workspaceId, { email: i.email, role: i.role });
    return membershipView({ workspaceId, userId: user!.id, email: i.email, role: i.role });
  },
});

/** Changes a member's role; keys they own carry the new role from their next call. */
export const setMemberRole = defineOperation({
  ...common,
  name: 'member.set_role',
  title: "Change a member's role",
  description: "Changes a member's role; keys the member owns carry the new role from their next call.",
  returns: 'The membership.',
  destructive: false,
  idempotent: true,
  input: yup.object({ email, role }),
  output: MEMBERSHIP,
  doors: { admin: { command: 'member set-role', flags: (f) => ({ email: f.email, role: f.role }) } },
  summary: (i) => `Make ${i.email} ${i.role}`,
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const [row] = await returning<{ user_id: string }>(
      ctx.m,
      `UPDATE memberships ms SET role = $3, updated_at = now()
       FROM users u WHERE u.id = ms.user_id AND ms.workspace_id = $1 AND u.email = $2 RETURNING ms.user_id`,
      [workspaceId, i.email, i.role],
    );
    if (!row) throw notFound('member');
    ctx.audit(workspaceId, { email: i.email, role: i.role });
    return membershipView({ workspaceId, userId: row.user_id, email: i.email, role: i.role });
  },
});

/** Removes a member; their keys stay on record but are refused from the next call. */
export const removeMember = defineOperation({
  ...common,
  name: 'member.remove',
  title: 'Remove a member',
  description: 'Removes a person from the workspace; keys they own are refused from their next call.',
  returns: 'The removed membership, with removed: true.',
  destructive: true,
  idempotent: false,
  input: yup.object({ email }),
  output: MEMBERSHIP,
  doors: { admin: { command: 'member remove', flags: (f) => ({ email: f.email }) } },
  summary: (i) => `Remove ${i.email} from the workspace`,
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const [removed] = await returning<{ user_id: string; role: Role }>(
      ctx.m,
      `DELETE FROM memberships ms USING users u
       WHERE u.id = ms.user_id AND ms.workspace_id = $1 AND u.email = $2 RETURNING ms.user_id, ms.role`,
      [workspaceId, i.email],
    );
    if (!removed) throw notFound('member');
    ctx.audit(workspaceId, { email: i.email });
    return {
      ...membershipView({ workspaceId, userId: removed.user_id, email: i.email, role: removed.role }),
      removed: true,
    };
  },
});
