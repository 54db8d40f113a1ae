import * as yup from 'yup';
import { defineOperation } from '../../kernel/operation';
import { addToWorkspace } from '../joining';
import { MEMBERSHIP, membershipView } from '../views';
import { MEMBER_CHANGE } from '../requirements';
import { memberEmailField, memberRoleField } from '../schemas';

/** Adds a person (creating the user on first sight) to a workspace with a role. */
export const addMember = defineOperation({
  ...MEMBER_CHANGE,
  name: 'member.add',
  title: 'Add a member',
  description: 'Adds a person to the workspace with a role, creating the user on first sight.',
  returns: 'The membership, with user_id.',
  input: yup.object({ email: memberEmailField, role: memberRoleField }),
  output: MEMBERSHIP,
  doors: {
    admin: { command: 'member add', flags: (f) => ({ email: f.email, role: f.role }) },
    console: true,
  },
  summary: (i) => `Add ${i.email} as ${i.role}`,
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const userId = await addToWorkspace(ctx, i.email, i.role);
    ctx.audit(workspaceId, { email: i.email, role: i.role });
    return membershipView({ workspaceId, userId, email: i.email, role: i.role });
  },
});
