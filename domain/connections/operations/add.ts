import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { defineOperation } from '../../kernel/operation';
import { CALDAV_FIELDS, calendarAccess } from '../caldav-fields';
import { connectionsIn } from '../repository/connections';
import { CONNECTIONS_CHANGE } from '../requirements';
import { displayName, SYSTEM_IDS, systemId } from '../systems';
import { CONNECTION, connectionView } from '../views';

/** A system the workspace connected in the application's settings (here, from the operator door). */
export const addConnection = defineOperation({
  name: 'connection.add',
  title: 'Connect a system',
  description: 'Records a system (a calendar, a CRM, an ad account) as connected to the workspace.',
  returns: 'The connection.',
  requirement: CONNECTIONS_CHANGE,
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
