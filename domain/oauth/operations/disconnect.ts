import * as yup from 'yup';
import { revokeCredential } from '../../identity';
import { describe } from '../../kernel/json-schema';
import { notFound } from '../../kernel/errors';
import { WRITE, defineOperation } from '../../kernel/operation';
import { endGrant } from '../repository/records';
import { connectionsIn } from '../repository/connections';
import { MANAGE_CONNECTIONS } from '../requirements';
import { CONNECTION, connectionView } from '../views';

/**
 * Ends a connection at once: its access and refresh tokens are deleted with its grant (the next call
 * answers 401, a refresh `invalid_grant`), its credential is revoked, and what it parked for approval
 * that still waits is withdrawn, all in one transaction.
 */
export const revokeAssistantConnection = defineOperation({
  name: 'assistant.disconnect',
  title: 'Revoke an assistant connection',
  description:
    'Revokes an assistant connection: its tokens stop working at once, and every approval request it parked that is still waiting is withdrawn (CANCELLED, reason "requester connection revoked").',
  returns: 'The connection, no longer live.',
  requirement: MANAGE_CONNECTIONS,
  reach: 'record',
  operatorOnly: true,
  ...WRITE,
  destructive: true,
  idempotent: true,
  input: yup.object({
    id: describe(yup.string().uuid('id must be a UUID').required('id is required'), 'The connection id.'),
  }),
  output: CONNECTION,
  doors: { admin: { command: 'assistant disconnect', flags: (f) => ({ id: f.id }) }, console: true },
  summary: (i) => `Revoke the assistant connection ${i.id}`,
  run: async (ctx, i) => {
    const found = await connectionsIn(ctx.data).find(i.id);
    if (!found) throw notFound('assistant connection');
    const data = ctx.data.in(found.workspace_id);
    const about = { connection_id: i.id, client_id: found.client_id };
    ctx.audit(found.workspace_id, about);
    const ended = await revokeCredential(ctx, data, i.id, 'requester connection revoked');
    const tokens = await endGrant(data, found.grant_id);
    ctx.audit(found.workspace_id, { ...about, tokens_ended: tokens, ...ended?.withdrawn });
    const now = ctx.services.clock?.() ?? new Date();
    return connectionView((await connectionsIn(data).list(i.id))[0]!, now);
  },
});
