import * as yup from 'yup';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { membersIn } from '../repository/members';
import { MANAGE_MEMBERS } from '../requirements';
import { MEMBERS } from '../views';

/** The workspace's members and their roles: where an admin changes a role or removes someone. */
export const listMembers = defineOperation({
  name: 'member.list',
  title: 'List members',
  description: "The workspace's members with their roles, by email.",
  returns: 'Members.',
  requirement: MANAGE_MEMBERS,
  reach: 'workspace',
  operatorOnly: true,
  ...READ_ONLY,
  input: yup.object({}),
  output: MEMBERS,
  doors: { admin: { command: 'member list' }, console: true },
  summary: () => 'List the members',
  run: async (ctx) =>
    (await membersIn(ctx.data).list()).map((m) => ({
      user_id: m.user_id,
      email: m.email,
      role: m.role,
      created_at: m.created_at.toISOString(),
    })),
});
