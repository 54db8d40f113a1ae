import * as yup from 'yup';
import { issueAssistantCredential, roleOf, scopesField } from '../../identity';
import { DomainError, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { CLIENT_KINDS, type ClientKind } from '../entities';
import { connectionsIn } from '../repository/connections';
import { CONNECTION, connectionView } from '../views';
import { CONNECTION_DAYS, CONNECT_ASSISTANT } from '../requirements';

const text = (name: string, max: number) =>
  yup.string().trim().required(`${name} is required`).max(max, `${name} must be at most ${max} characters`);

/**
 * A member's consent on the console's consent page: the client may act as them in this workspace with
 * the scopes they kept. The grant is the authorization server's record its tokens belong to; the
 * connection's credential carries the scopes, the member and the revocation every call reads.
 */
export const grantAssistantConnection = defineOperation({
  name: 'assistant.connect',
  title: 'Connect an assistant',
  description:
    "Records a member's consent to an OAuth client: its access tokens act as the member in this workspace with the granted scopes, narrowed on every call by the member's live role.",
  returns: 'The connection.',
  requirement: CONNECT_ASSISTANT,
  reach: 'workspace',
  operatorOnly: true,
  ...WRITE,
  input: yup.object({
    memberId: describe(
      yup.string().uuid('memberId must be a UUID').required('memberId is required'),
      'The member who consented (the console: the signed-in member; nobody else).',
    ),
    grantId: describe(text('grantId', 200), "The authorization server's grant the tokens belong to."),
    clientId: describe(text('clientId', 2000), "The client's id."),
    clientName: describe(text('clientName', 200), 'The name the consent page showed.'),
    clientHost: describe(
      text('clientHost', 300),
      'Where its metadata document lives, or `registered client`.',
    ),
    clientKind: describe(
      yup
        .mixed<ClientKind>()
        .oneOf(CLIENT_KINDS, `clientKind must be one of ${CLIENT_KINDS.join(', ')}`)
        .required('clientKind is required'),
      'How the client named itself.',
    ),
    scopes: scopesField('What the member lets it do.'),
  }),
  output: CONNECTION,
  doors: { console: true },
  summary: (i) => `Connect ${i.clientName} (${i.clientHost})`,
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    // A member consents for themselves only; the operator (trusted shell access) records it for one.
    if (ctx.actor.type === 'member' && ctx.actor.userId !== i.memberId)
      throw new DomainError('forbidden', 'Not allowed.', {}, 'a member consenting for someone else');
    if ((await roleOf(ctx.data, i.memberId)) === null) throw notFound('member');
    const now = ctx.services.clock?.() ?? new Date();
    const keyId = await issueAssistantCredential(ctx.data, {
      memberId: i.memberId,
      clientName: i.clientName,
      clientHost: i.clientHost,
      scopes: [...new Set(i.scopes)],
      expiresAt: new Date(now.getTime() + CONNECTION_DAYS * 86_400_000),
    });
    const connections = connectionsIn(ctx.data);
    await connections.add({
      key_id: keyId,
      grant_id: i.grantId,
      client_id: i.clientId,
      client_name: i.clientName,
      client_host: i.clientHost,
      client_kind: i.clientKind,
    });
    ctx.audit(workspaceId, { connection_id: keyId, client_id: i.clientId, scopes: i.scopes });
    const [row] = await connections.list(keyId);
    return connectionView(row!, now);
  },
});
