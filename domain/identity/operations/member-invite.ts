import * as yup from 'yup';
import { defineOperation } from '../../kernel/operation';
import { addToWorkspace } from '../joining';
import { queueMemberMail } from '../member-mail';
import { workspaceNamed } from '../repository/workspaces';
import { MEMBER_CHANGE } from '../requirements';
import { memberEmailField, memberRoleField } from '../schemas';
import { INVITATION } from '../views';

/** The console's sign-in page, which the invitation names (api/console/ serves it). */
const SIGN_IN_PATH = '/app/sign-in';

/**
 * Adds a person as `member.add` does and mails them where to sign in. The mail holds no link that signs
 * anyone in: the invitee asks for a one-time link on that page, from the browser they will use, since a
 * link works only in the browser that asked for it.
 */
export const inviteMember = defineOperation({
  ...MEMBER_CHANGE,
  name: 'member.invite',
  title: 'Invite a member',
  description:
    'Adds a person to the workspace with a role, creating the user on first sight, and emails them where to sign in to the console.',
  returns: 'The membership, with user_id and the sign-in page the invitation names.',
  openWorld: true,
  input: yup.object({ email: memberEmailField, role: memberRoleField }),
  output: INVITATION,
  doors: {
    admin: { command: 'member invite', flags: (f) => ({ email: f.email, role: f.role }) },
    console: true,
  },
  summary: (i) => `Invite ${i.email} as ${i.role}`,
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const userId = await addToWorkspace(ctx, i.email, i.role);
    const workspace = await workspaceNamed(ctx.data, workspaceId);
    const name = workspace?.name ?? 'a workspace';
    const signInUrl = `${ctx.services.publicUrl.replace(/\/$/, '')}${SIGN_IN_PATH}?email=${encodeURIComponent(i.email)}`;
    await queueMemberMail(
      ctx.data,
      {
        userId,
        workspaceId,
        kind: 'invitation',
        subject: `You are invited to ${name}`,
        text: [
          `You have been added to ${name} as ${i.role}.`,
          '',
          `Sign in here: ${signInUrl}`,
          '',
          'There is no password. On that page you ask for a one-time sign-in link, which is mailed to this',
          'address and works for 15 minutes in the browser that asked for it; you then set up a passkey',
          '(your fingerprint, face or device PIN), which is how you sign in from then on.',
          '',
          'If you did not expect this, you can ignore this email.',
        ].join('\n'),
      },
      ctx.services.secretsKey,
    );
    ctx.audit(workspaceId, { email: i.email, role: i.role, invitation: 'queued' });
    return {
      workspace_id: workspaceId,
      user_id: userId,
      email: i.email,
      role: i.role,
      sign_in_url: signInUrl,
    };
  },
});
