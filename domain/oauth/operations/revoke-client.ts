import * as yup from 'yup';
import { revokeCredential } from '../../identity';
import { describe } from '../../kernel/json-schema';
import { notFound } from '../../kernel/errors';
import { WRITE, defineOperation } from '../../kernel/operation';
import { AssistantConnectionEntity } from '../entities';
import { forgetClient, registeredClients } from '../repository/records';

/**
 * Forgets a registered client: its registration, its grants and tokens, and every workspace's
 * connection to it (revoked, their parked requests withdrawn). It may register again; each member
 * would have to consent again.
 */
export const revokeRegisteredClient = defineOperation({
  name: 'oauth.revoke_client',
  title: 'Revoke a registered OAuth client',
  description:
    "Deletes a registered client and everything issued to it: its tokens stop working at once, and every workspace's connection to it is revoked.",
  returns: 'How many connections and records ended.',
  requirement: { scope: 'business:write', minRole: 'owner' },
  reach: 'none',
  operatorOnly: true,
  ...WRITE,
  destructive: true,
  idempotent: true,
  input: yup.object({
    clientId: describe(yup.string().trim().required('client-id is required').max(2000), 'The client id.'),
  }),
  output: {
    type: 'object',
    properties: {
      client_id: { type: 'string' },
      connections_revoked: { type: 'integer' },
      records_ended: { type: 'integer' },
    },
    required: ['client_id', 'connections_revoked', 'records_ended'],
    additionalProperties: false,
  },
  doors: { admin: { command: 'oauth revoke-client', flags: (f) => ({ clientId: f['client-id'] }) } },
  summary: (i) => `Revoke the registered OAuth client ${i.clientId}`,
  run: async (ctx, i) => {
    const known = (await registeredClients(ctx.data)).some((c) => c.id === i.clientId);
    const connections = await ctx.data.global(AssistantConnectionEntity).find({ client_id: i.clientId });
    if (!known && connections.length === 0) throw notFound('registered client');
    let revoked = 0;
    for (const c of connections) {
      const ended = await revokeCredential(
        ctx,
        ctx.data.in(c.workspace_id),
        c.key_id,
        'requester client revoked',
      );
      if (ended?.revoked) revoked += 1;
      ctx.audit(c.workspace_id, { connection_id: c.key_id, client_id: i.clientId, ...ended?.withdrawn });
    }
    const records = await forgetClient(ctx.data, i.clientId);
    ctx.audit(null, { client_id: i.clientId, connections_revoked: revoked, records_ended: records });
    return { client_id: i.clientId, connections_revoked: revoked, records_ended: records };
  },
});
