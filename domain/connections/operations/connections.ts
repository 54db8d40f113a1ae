import * as yup from 'yup';
import { DomainError, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import type { Requirement } from '../../kernel/permissions';
import { dateTime, nullable, object, oneOf, page, string, uuid } from '../../kernel/shapes';
import { workspaceNamed } from '../../identity';
import type { Connection } from '../entities';
import { connectionsIn } from '../repository';
import { displayName, SYSTEM_IDS, systemId } from '../systems';
import { CALDAV_FIELDS, calendarAccess } from './caldav-fields';

const READ: Requirement = { scope: 'business:read', minRole: 'viewer' };
const CHANGE: Requirement = { scope: 'business:write', minRole: 'admin' };

const connectionView = (c: Connection) => ({
  id: c.id,
  system: c.system,
  name: displayName(c.system),
  status: c.status,
  // The password is never shown; the URL and user name say which calendar it is.
  ...(c.calendar_url ? { calendar_url: c.calendar_url, username: c.username } : {}),
  connected_at: c.created_at.toISOString(),
  disconnected_at: c.disconnected_at ? c.disconnected_at.toISOString() : null,
});

const CONNECTION = object(
  {
    id: uuid,
    system: string({ description: 'The system id, for example google_calendar.' }),
    name: string({ description: 'Its name, for example "Google Calendar".' }),
    status: oneOf(['CONNECTED', 'DISCONNECTED']),
    calendar_url: string({ description: 'A CalDAV calendar: its collection URL.' }),
    username: string({ description: 'A CalDAV calendar: the user name it is reached with.' }),
    connected_at: dateTime,
    disconnected_at: nullable(dateTime),
  },
  { title: 'Connection', optional: ['calendar_url', 'username'] },
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
    ...CALDAV_FIELDS,
  }),
  output: CONNECTION,
  doors: {
    admin: {
      command: 'connection add',
      flags: (f) => ({
        system: f.system,
        calendar_url: f['calendar-url'],
        username: f.username,
        password: f.password,
      }),
    },
  },
  summary: (i) => `Connect ${displayName(i.system)}`,
  run: async (ctx, input) => {
    const system = systemId(input.system)!;
    const calendar = await calendarAccess(ctx.services, system, input);
    const row = await connectionsIn(ctx.data).connect(system, calendar);
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
    const rows = await connectionsIn(ctx.data).list();
    return { data: rows.map(connectionView), count: rows.length };
  },
});

/** Disconnecting a system stops whatever relies on it, so a key's request waits for a person's approval. */
export const disconnectConnection = defineOperation({
  name: 'connection.disconnect',
  title: 'Disconnect a system',
  description: 'Disconnects a connected system from the workspace.',
  returns: 'The connection, now DISCONNECTED (once approved).',
  requirement: CHANGE,
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
