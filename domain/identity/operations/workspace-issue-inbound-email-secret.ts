import * as yup from 'yup';
import { WRITE, defineOperation } from '../../kernel/operation';
import { object, string, uuid } from '../../kernel/shapes';
import { inboundEmailSecretHash, newInboundEmailSecret } from '../inbound-email';
import { workspacesIn } from '../repository/workspaces';

/**
 * The secret the inbound-email route requires (as the password of HTTP Basic or a Bearer token):
 * whatever forwards the workspace's mail (a mail provider's inbound parse, a Postfix pipe) presents it.
 * Issuing a new one replaces the old at once.
 */
export const issueInboundEmailSecret = defineOperation({
  name: 'workspace.issue_inbound_email_secret',
  title: "Issue the workspace's inbound-email secret",
  description:
    "Issues a new secret for the workspace's inbound-email route, replacing the old one at once; shown only now.",
  returns: '{ workspace_id, secret, path }.',
  requirement: { scope: 'business:write', minRole: 'admin' },
  reach: 'workspace',
  operatorOnly: true,
  ...WRITE,
  input: yup.object({}),
  output: object({ workspace_id: uuid, secret: string(), path: string() }),
  doors: { admin: { command: 'workspace inbound-email-secret' } },
  summary: () => "Issue the workspace's inbound-email secret",
  run: async (ctx) => {
    const workspaceId = ctx.workspaceId!;
    const secret = newInboundEmailSecret();
    await workspacesIn(ctx.data).setInboundEmailSecretHash(workspaceId, inboundEmailSecretHash(secret));
    ctx.audit(workspaceId, {});
    return { workspace_id: workspaceId, secret, path: `/hooks/email/${workspaceId}` };
  },
});
