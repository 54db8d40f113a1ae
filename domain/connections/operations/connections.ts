import * as yup from 'yup';
import { DomainError, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import type { Requirement } from '../../kernel/permissions';
import { dateTime, nullable, object, oneOf, page, string, uuid } from '../../kernel/shapes';
import { displayName, SYSTEM_IDS, systemId } from '../systems';

const READ: Requirement = { scope: 'business:read', minRole: 'viewer' };
const CHANGE: Requirement = { scope: 'business:write', minRole: 'admin' };

type ConnectionRow = {
  id: string;
  workspace_id: string;
  system: string;
  status: 'CONNECTED' | 'DISCONNECTED';
  created_at: Date;
  disconnected_at: Date | null;
};
const COLUMNS = 'id, workspace_id, system, status, created_at, disconnected_at';

const connectionView = (c: ConnectionRow) => ({
  id: c.id,
  system: c.system,
  name: displayName(c.system),
  status: c.status,
  connected_at: c.created_at.toISOString(),
  disconnected_at: c.disconnected_at ? c.disconnected_at.toISOString() : null,
});

const CONNECTION = object(
  {
    id: uuid,
    system: string({ description: 'The system id, for example google_calendar.' }),
    name: string({ description: 'Its name, for example "Google Calendar".' }),
    status: oneOf(['CONNECTED', 'DISCONNECTED']),
    connected_at: dateTime,
    disconnected_at: nullable(dateTime),
  },
  { title: 'Connection' },
);

/** A system the workspace connected in the application's settings (here, from the operator door). */
export const addConnection = defineOperation({
  name: 'connection.add',
  title: 'Connect a system',
  description: 'Records a system (a calendar, a CRM, an ad account) as connected to the workspace.',
  returns: 'The connection.',
  requirement: CHANGE,
  reach: 'workspace',
  operatorOnly: true,
  changes: true,
  destructive: false,
  idempotent: false,
  gated: false,
  input: yup.object({
    system: describe(
      yup
        .string()
        .required('system is required')
        .test(
          'known',
          `system must be one of ${SYSTEM_IDS.join(', ')} (or its name, such as "Google Calendar")`,
          (v) => v === undefined || systemId(v) !== undefined,
        ),
      `The system: its id (${SYSTEM_IDS.join(', ')}) or its name, such as "Google Calendar".`,
    ),
  }),
  output: CONNECTION,
  doors: { admin: { command: 'connection add', flags: (f) => ({ system: f.system }) } },
  summary: (i) => `Connect ${displayName(i.system)}`,
  run: async (ctx, input) => {
    const system = systemId(input.system)!;
    const [row] = await ctx.m.query<ConnectionRow[]>(
      `INSERT INTO connections (workspace_id, system) VALUES ($1, $2)
       ON CONFLICT (workspace_id, lower(system)) WHERE status = 'CONNECTED' DO NOTHING RETURNING ${COLUMNS}`,
      [ctx.workspaceId, system],
    );
    if (!row) throw new DomainError('conflict', `${displayName(system)} is already connected.`);
    ctx.audit(ctx.workspaceId!, { connection_id: row.id, system });
    return connectionView(row);
  },
});

export const listConnections = defineOperation({
  name: 'connection.list',
  title: 'List connected systems',
  description: 'The systems connected to the workspace (calendars, CRMs, ad accounts), connected first.',
  returns: '{ data: [connection], count }.',
  requirement: READ,
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({}),
  output: page(CONNECTION, { title: 'ConnectionList' }),
  doors: { mcp: true },
  summary: () => 'List connected systems',
  run: async (ctx) => {
    const rows = await ctx.m.query<ConnectionRow[]>(
      `SELECT ${COLUMNS} FROM connections WHERE workspace_id = $1 ORDER BY status, created_at DESC, id`,
      [ctx.workspaceId],
    );
    return { data: rows.map(connectionView), count: rows.length };
  },
});

/** Disconnecting a system stops whatever relies on it, so a key's request waits for a person's approval. */
export const disconnectConnection = defineOperation({
  name: 'connection.disconnect',
  title: 'Disconnect a system',
  description:
    'Disconnects a connected system from the workspace. This waits for a person to approve it: calling it parks a request and nothing happens until an admin approves.',
  returns: 'The connection, now DISCONNECTED (once approved).',
  requirement: CHANGE,
  reach: 'record',
  changes: true,
  destructive: true,
  idempotent: true,
  gated: true,
  input: yup.object({
    connectionId: describe(
      yup.string().uuid('connectionId must be a UUID').required('connectionId is required'),
      'The connection id, from connection.list.',
    ),
  }),
  output: CONNECTION,
  doors: { mcp: true },
  summary: async (i, look) => {
    const [row] = look
      ? await look.m.query<{ system: string; workspace: string }[]>(
          `SELECT c.system, w.name AS workspace FROM connections c JOIN workspaces w ON w.id = c.workspace_id
            WHERE c.id = $1 AND ($2::uuid IS NULL OR c.workspace_id = $2)`,
          [i.connectionId, look.workspaceId ?? null],
        )
      : [];
    return row
      ? `Disconnect ${displayName(row.system)} from ${row.workspace}`
      : `Disconnect connection ${i.connectionId}`;
  },
  run: async (ctx, { connectionId }) => {
    const [row] = await ctx.m.query<ConnectionRow[]>(
      `SELECT ${COLUMNS} FROM connections WHERE id = $1 AND ($2::uuid IS NULL OR workspace_id = $2) FOR UPDATE`,
      [connectionId, ctx.workspaceId ?? null],
    );
    if (!row) throw notFound('connection');
    ctx.audit(row.workspace_id, { connection_id: row.id, system: row.system });
    if (row.status === 'DISCONNECTED') return connectionView(row);
    const [[updated]] = await ctx.m.query<[ConnectionRow[], number]>(
      `UPDATE connections SET status = 'DISCONNECTED', disconnected_at = clock_timestamp() WHERE id = $1 RETURNING ${COLUMNS}`,
      [row.id],
    );
    return connectionView(updated!);
  },
});
