import * as yup from 'yup';
import { notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { defineOperation } from '../../kernel/operation';
import { workspaceNamed } from '../../identity';
import { connectionsIn } from '../repository/connections';
import { CONNECTIONS_CHANGE } from '../requirements';
import { displayName } from '../systems';
import { CONNECTION, connectionView } from '../views';

/** Disconnecting a system stops whatever relies on it, so a key's request waits for a person's approval. */
export const disconnectConnection = defineOperation({
  name: 'connection.disconnect',
  title: 'Disconnect a system',
  description: 'Disconnects a connected system from the workspace.',
  returns: 'The connection, now DISCONNECTED (once approved).',
  requirement: CONNECTIONS_CHANGE,
  reach: 'record',
  changes: true,
  destructive: true,
  idempotent: true,
  gated: true,
  // What a person approves: which system, on which account (the calendar's address and user name;
  // never its password), bound so a reconnection to another account in between refuses the run.
  effect: async (i, data, opts) => {
    const connections = connectionsIn(data);
    const row = opts.lock ? await connections.lock(i.connectionId) : await connections.find(i.connectionId);
    if (!row) throw notFound('connection');
    return {
      bound: {
        system: row.system,
        account: { calendar_url: row.calendar_url, username: row.username },
        connected_at: row.created_at.toISOString(),
      },
    };
  },
  input: yup.object({
    connectionId: describe(
      yup.string().uuid('connectionId must be a UUID').required('connectionId is required'),
      'The connection id, from connection.list.',
    ),
  }),
  output: CONNECTION,
  doors: { mcp: true },
  summary: async (i, look) => {
    const row = look && (await connectionsIn(look).find(i.connectionId));
    const workspace = row && (await workspaceNamed(look, row.workspace_id));
    return row && workspace
      ? `Disconnect ${displayName(row.system)} from ${workspace.name}`
      : `Disconnect connection ${i.connectionId}`;
  },
  run: async (ctx, { connectionId }) => {
    const connections = connectionsIn(ctx.data);
    const row = await connections.lock(connectionId);
    if (!row) throw notFound('connection');
    ctx.audit(row.workspace_id, { connection_id: row.id, system: row.system });
    if (row.status === 'DISCONNECTED') return connectionView(row);
    return connectionView(await connections.disconnect(row.id));
  },
});
