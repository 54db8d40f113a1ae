import * as yup from 'yup';
import { authorityLost } from '../../kernel/gate';
import { notFound } from '../../kernel/errors';
import { defineOperation } from '../../kernel/operation';
import { ROLES } from '../../kernel/permissions';
import { MEMBERSHIP, membershipView } from '../views';
import { membersIn } from '../repository/members';
import { MEMBER_CHANGE } from '../requirements';
import { memberEmailField, memberRoleField } from '../schemas';
import { endSessionsOf } from '../sessions';

/**
 * Changes a member's role; keys they own carry the new role from their next call, their waiting
 * approval requests that the new role could not have made are withdrawn with the change, and a demotion
 * ends their console sessions at once (they sign in again, and every page then reads the new role).
 */
export const setMemberRole = defineOperation({
  ...MEMBER_CHANGE,
  name: 'member.set_role',
  title: "Change a member's role",
  description:
    "Changes a member's role; keys the member owns carry the new role from their next call, and approval requests their keys parked that the new role may not make are withdrawn.",
  returns: 'The membership.',
  idempotent: true,
  input: yup.object({ email: memberEmailField, role: memberRoleField }),
  output: MEMBERSHIP,
  doors: {
    admin: { command: 'member set-role', flags: (f) => ({ email: f.email, role: f.role }) },
    console: true,
  },
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
    const demoted = ROLES.indexOf(i.role) < ROLES.indexOf(row.previous);
    const sessionsEnded = demoted ? await endSessionsOf(ctx.data, row.user_id, 'demoted') : 0;
    ctx.audit(workspaceId, {
      email: i.email,
      role: i.role,
      previous_role: row.previous,
      ...withdrawn,
      ...(demoted && { sessions_ended: sessionsEnded }),
    });
    return membershipView({ workspaceId, userId: row.user_id, email: i.email, role: i.role });
  },
});
