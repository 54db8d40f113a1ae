import * as yup from 'yup';
import { invalid } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { DEFAULT_PAGE_SIZE } from '../../kernel/validate';
import { LEADS_READ } from '../../leads';
import { appointmentsIn } from '../repository/appointments';
import { APPOINTMENT_STATUSES } from '../rules';
import { APPOINTMENT_LIST, appointmentView } from '../views';

const instant = (field: string, what: string) =>
  describe(
    yup
      .string()
      .typeError(`${field} must be an ISO 8601 date-time`)
      .test('instant', `${field} must be an ISO 8601 date-time with an offset`, (v) =>
        v === undefined ? true : /[zZ]|[+-]\d{2}:\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)),
      ),
    what,
  );

export const listAppointments = defineOperation({
  name: 'appointment.list',
  title: 'List appointments',
  description:
    'Appointments of the workspace, soonest first, optionally for one lead, in one status, or overlapping a time range.',
  returns: '{ data: [appointment], count }.',
  requirement: LEADS_READ,
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({
    leadId: describe(
      yup.string().typeError('leadId must be a UUID').uuid('leadId must be a UUID'),
      'Only this lead.',
    ),
    status: describe(
      yup
        .string()
        .typeError('status must be a string')
        .oneOf([...APPOINTMENT_STATUSES], `status must be one of ${APPOINTMENT_STATUSES.join(', ')}`),
      `Only this status: ${APPOINTMENT_STATUSES.join(', ')}.`,
    ),
    from: instant('from', 'Only appointments ending after this instant (ISO 8601 with offset).'),
    to: instant('to', 'Only appointments starting before this instant (ISO 8601 with offset).'),
    limit: describe(
      yup
        .number()
        .typeError('limit must be a number')
        .integer('limit must be a whole number')
        .min(1, 'limit must be between 1 and 100')
        .max(100, 'limit must be between 1 and 100'),
      `At most this many (1-100, default ${DEFAULT_PAGE_SIZE}).`,
    ),
  }),
  output: APPOINTMENT_LIST,
  doors: {
    mcp: true,
    admin: {
      command: 'appointment list',
      flags: (f) => ({ leadId: f.lead, status: f.status, from: f.from, to: f.to, limit: f.limit }),
      present: (o: { data: unknown[] }) => o.data,
    },
  },
  summary: () => 'List appointments',
  run: async (ctx, i) => {
    const from = i.from ? new Date(i.from) : undefined;
    const to = i.to ? new Date(i.to) : undefined;
    if (from && to && to <= from) throw invalid('to', 'to must be after from');
    const rows = await appointmentsIn(ctx.data).list({
      leadId: i.leadId,
      status: i.status,
      from,
      to,
      limit: i.limit ?? DEFAULT_PAGE_SIZE,
    });
    return { data: rows.map(appointmentView), count: rows.length };
  },
});
