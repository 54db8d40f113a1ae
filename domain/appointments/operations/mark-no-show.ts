import * as yup from 'yup';
import { DomainError, notFound } from '../../kernel/errors';
import { WRITE, defineOperation } from '../../kernel/operation';
import { LEADS_WRITE } from '../../leads';
import { appointmentsIn } from '../repository/appointments';
import { meetingFields } from '../event-fields';
import { APPOINTMENT, appointmentView } from '../views';
import { appointmentIdField } from '../schemas';

/** No calendar I/O: the event stays on the calendar as the record of a meeting that was set. */
export const markNoShow = defineOperation({
  name: 'appointment.mark_no_show',
  title: 'Mark an appointment a no-show',
  description:
    'Records that the lead did not turn up to a CONFIRMED appointment; only once it has started. Sends meeting.no_show. The lead keeps its status.',
  returns: 'The appointment, now NO_SHOW.',
  requirement: LEADS_WRITE,
  reach: 'record',
  ...WRITE,
  idempotent: true,
  input: yup.object({ appointmentId: appointmentIdField }),
  output: APPOINTMENT,
  doors: { mcp: true },
  summary: (i) => `Mark appointment ${i.appointmentId} a no-show`,
  run: async (ctx, i) => {
    const appointments = appointmentsIn(ctx.data);
    const row = await appointments.lock(i.appointmentId);
    if (!row) throw notFound('appointment');
    if (row.status === 'NO_SHOW') return appointmentView(row);
    if (row.status !== 'CONFIRMED')
      throw new DomainError(
        'conflict',
        `The appointment is ${row.status}; only a CONFIRMED one can be a no-show.`,
        {
          field: 'appointmentId',
          status: row.status,
        },
      );
    if (row.starts_at > (ctx.services.clock?.() ?? new Date()))
      throw new DomainError('conflict', 'The appointment has not started yet; it cannot be a no-show.', {
        field: 'appointmentId',
      });
    const now = await appointmentsIn(ctx.data.in(row.workspace_id)).move(row.id, { status: 'NO_SHOW' });
    await ctx.emit(
      row.workspace_id,
      'meeting.no_show',
      { type: 'lead', id: row.lead_id },
      meetingFields(now, row.status),
    );
    ctx.audit(row.workspace_id, { appointment_id: row.id, lead_id: row.lead_id });
    return appointmentView(now);
  },
});
