import * as yup from 'yup';
import { authorityLost } from '../../kernel/gate';
import { notFound } from '../../kernel/errors';
import { defineOperation } from '../../kernel/operation';
import { MEMBERSHIP, membershipView } from '../views';
import { keysIn } from '../repository/api-keys';
import { membersIn } from '../repository/members';
import { MEMBER_CHANGE } from '../requirements';
import { memberEmailField } from '../schemas';
import { endSessionsOf } from '../sessions';

/**
 * Removes a member; their keys stay on record but are refused from the next call, their waiting
 * approval requests are withdrawn with the removal, and their console sessions end at once (a session is
 * the person's: they sign in again for the workspaces they still belong to). The assistants they
 * connected are revoked: a consent is the person's, and adding them back does not bring it back.
 */
export const removeMember = defineOperation({
  ...MEMBER_CHANGE,
  name: 'member.remove',
  title: 'Remove a member',
  description:
    'Removes a person from the workspace; keys they own are refused from their next call, and approval requests those keys parked are withdrawn.',
  returns: 'The removed membership, with removed: true.',
  destructive: true,
  input: yup.object({ email: memberEmailField }),
  output: MEMBERSHIP,
  doors: { admin: { command: 'member remove', flags: (f) => ({ email: f.email }) }, console: true },
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
    const sessionsEnded = await endSessionsOf(ctx.data, removed.user_id, 'removed');
    const assistantsRevoked = await keysIn(ctx.data).revokeAssistantsOf(removed.user_id);
    ctx.audit(workspaceId, {
      email: i.email,
      ...withdrawn,
      sessions_ended: sessionsEnded,
      assistant_connections_revoked: assistantsRevoked,
    });
    return {
      ...membershipView({ workspaceId, userId: removed.user_id, email: i.email, role: removed.role }),
      removed: true,
    };
  },
});
