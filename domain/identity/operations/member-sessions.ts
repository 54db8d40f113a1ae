import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { defineOperation } from '../../kernel/operation';
import { ownerIdByEmail } from '../repository/members';
import { MEMBER_CHANGE } from '../requirements';
import { memberEmailField } from '../schemas';
import { endSessionsOf, sessionsOf } from '../sessions';
import { MEMBER_SESSIONS, sessionView } from '../views';

/**
 * A member's console sessions, and with `revoke` the end of every one of them at once (a lost laptop, a
 * person leaving): a session is the person's, not the workspace's, so revoking ends it for every
 * workspace they sign in to. One operation, so the operator types `member sessions --revoke`.
 */
export const memberSessions = defineOperation({
  ...MEMBER_CHANGE,
  name: 'member.sessions',
  title: "List or revoke a member's console sessions",
  description:
    "Lists a member's console sessions, newest first; with revoke, ends every one of them first (they sign in again with their passkey).",
  returns: 'The member and their sessions; with revoke, how many it ended.',
  idempotent: true,
  input: yup.object({
    email: memberEmailField,
    revoke: describe(
      yup.boolean().typeError('revoke must be true or false').default(false),
      'End every console session the member has, in every workspace.',
    ),
  }),
  output: MEMBER_SESSIONS,
  doors: { admin: { command: 'member sessions', flags: (f) => ({ email: f.email, revoke: f.revoke }) } },
  summary: (i) =>
    i.revoke ? `End every console session of ${i.email}` : `List ${i.email}'s console sessions`,
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const userId = await ownerIdByEmail(ctx.data, i.email, 'email');
    const revoked = i.revoke ? await endSessionsOf(ctx.data, userId, 'revoked') : undefined;
    ctx.audit(workspaceId, { email: i.email, ...(revoked !== undefined && { revoked }) });
    return {
      email: i.email,
      user_id: userId,
      ...(revoked !== undefined && { revoked }),
      sessions: (await sessionsOf(ctx.data, userId)).map(sessionView),
    };
  },
});
