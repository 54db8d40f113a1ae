import * as yup from 'yup';
import { invalid } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { workspaceNamed } from '../../identity';
import { calendarConnection } from '../../connections';
import { leadIdField, LEADS_WRITE, lockLead } from '../../leads';
import { appointmentsIn } from '../repository/appointments';
import { MAX_HOURS } from '../rules';
import { instantOf, isTimeZone } from '../time';
import { bookingFields } from '../event-fields';
import { APPOINTMENT, appointmentView } from '../views';

const time = (field: string, what: string) =>
  describe(
    yup.string().typeError(`${field} must be a date-time string`).trim().required(`${field} is required`),
    `${what}: ISO 8601 with an offset (2026-12-01T10:00:00+01:00, or Z for UTC), or a local time without one (2026-12-01T10:00), read in \`timezone\`.`,
  );

const HOUR_MS = 3_600_000;

/**
 * Books a time with a lead. The booking is recorded REQUESTED with booking.created, and its
 * workflow (started after commit) asks the connected calendar: free, the event is written and the
 * booking confirmed (meeting.booked, lead BOOKED); busy, or no calendar, it waits for a person
 * (meeting.pending) and is declined if nobody confirms it before it starts.
 */
export const bookAppointment = defineOperation({
  name: 'appointment.book',
  title: 'Book an appointment',
  description:
    "Books a meeting with a lead. Times are ISO 8601; a time without an offset is read in the workspace's time zone unless `timezone` is given. It must start in the future, end after it starts, and last at most 8 hours. A connected calendar confirms it when the slot is free; otherwise it waits for a person to confirm (status PENDING). The answer is status REQUESTED: read it again with appointment.get to see the outcome.",
  returns: 'The appointment, REQUESTED while the calendar is asked.',
  requirement: LEADS_WRITE,
  reach: 'workspace',
  ...WRITE,
  openWorld: true,
  input: yup.object({
    leadId: leadIdField,
    starts_at: time('starts_at', 'When it starts'),
    ends_at: time('ends_at', 'When it ends (after it starts, at most 8 hours later)'),
    timezone: describe(
      yup
        .string()
        .typeError('timezone must be a string')
        .test(
          'zone',
          'timezone must be an IANA time zone, such as Europe/Amsterdam',
          (v) => v === undefined || isTimeZone(v),
        ),
      "The IANA time zone for times written without an offset; default: the workspace's.",
    ),
    title: describe(
      yup
        .string()
        .typeError('title must be a string')
        .trim()
        .min(1, 'title must not be empty')
        .max(200, 'title must be at most 200 characters'),
      'What the meeting is, as the calendar shows it; default "Meeting with <lead name>".',
    ),
    note: describe(
      yup.string().typeError('note must be a string').max(2000, 'note must be at most 2000 characters'),
      'A note for the calendar event (agenda, address, call link).',
    ),
  }),
  output: APPOINTMENT,
  doors: { mcp: true },
  summary: (i) => `Book a meeting with lead ${i.leadId} at ${i.starts_at}`,
  run: async (ctx, i) => {
    const workspace = await workspaceNamed(ctx.data, ctx.workspaceId!);
    const zone = i.timezone ?? workspace?.timezone ?? 'UTC';
    const start = instantOf(i.starts_at, zone);
    if (!start)
      throw invalid('starts_at', 'starts_at must be an ISO 8601 date-time, such as 2026-12-01T10:00');
    const end = instantOf(i.ends_at, zone);
    if (!end) throw invalid('ends_at', 'ends_at must be an ISO 8601 date-time, such as 2026-12-01T11:00');
    const now = ctx.services.clock?.() ?? new Date();
    if (start <= now)
      throw invalid('starts_at', `starts_at must be in the future (it is ${start.toISOString()})`);
    if (end <= start) throw invalid('ends_at', 'ends_at must be after starts_at');
    if (end.getTime() - start.getTime() > MAX_HOURS * HOUR_MS)
      throw invalid('ends_at', `an appointment lasts at most ${MAX_HOURS} hours`);
    const { lead, data } = await lockLead(ctx.data, i.leadId);
    const calendar = await calendarConnection(data);
    const name = [lead.first_name, lead.last_name].filter(Boolean).join(' ') || lead.email || lead.phone;
    const row = await appointmentsIn(data).add({
      lead_id: lead.id,
      starts_at: start,
      ends_at: end,
      timezone: zone,
      title: i.title ?? `Meeting with ${name ?? 'a lead'}`,
      note: i.note ?? null,
      provider: calendar ? 'caldav' : 'manual',
      connection_id: calendar?.id ?? null,
    });
    const created = bookingFields(row);
    await ctx.emit(lead.workspace_id, 'booking.created', { type: 'lead', id: lead.id }, created);
    ctx.audit(lead.workspace_id, { appointment_id: row.id, lead_id: lead.id, provider: row.provider });
    // After commit; a crash before it is caught by the maintenance sweep, which starts what never started.
    ctx.afterCommit(() => ctx.services.appointments.start(row.id));
    return appointmentView(row);
  },
});
