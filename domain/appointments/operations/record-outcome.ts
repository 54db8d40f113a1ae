import * as yup from 'yup';
import { DomainError, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation, type OperationContext } from '../../kernel/operation';
import {
  canMove as leadCanMove,
  flagForAttention,
  LEADS_WRITE,
  lockLead,
  operations as leadOperations,
} from '../../leads';
import { meetingFields } from '../event-fields';
import { appointmentsIn } from '../repository/appointments';
import { canMove, type AppointmentStatus } from '../rules';
import { APPOINTMENT, appointmentView } from '../views';

/**
 * A confirmed booking moves its lead to BOOKED through the status rules (lead.set_status, so
 * lead.status_changed is emitted as for any move); a lead already BOOKED, or one the rules keep where
 * it is (WON), stays as it is and the booking is confirmed all the same.
 */
async function bookLead(ctx: OperationContext, leadId: string) {
  const { lead } = await lockLead(ctx.data, leadId);
  if (lead.status === 'BOOKED' || !leadCanMove(lead.status, 'BOOKED')) return lead.status;
  await leadOperations.setLeadStatus.run(ctx, { leadId, status: 'BOOKED' });
  return 'BOOKED';
}

const OUTCOMES = ['CONFIRMED', 'PENDING', 'DECLINED', 'CANCELLED'] as const;

/**
 * Records where a booking now stands, with its events and audit, in one transaction: run by the
 * booking's workflow (through the runner, on the activity's behalf) once the calendar has answered,
 * never by a door. A retried activity that finds the booking already there changes nothing.
 */
export const recordOutcome = defineOperation({
  name: 'appointment.record_outcome',
  title: "Record a booking's outcome",
  description: 'Moves a booking to CONFIRMED, PENDING, DECLINED or CANCELLED, with its events.',
  returns: 'The appointment.',
  requirement: LEADS_WRITE,
  reach: 'record',
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
  input: yup.object({
    appointmentId: describe(yup.string().uuid().required(), 'The appointment id.'),
    to: describe(yup.string().oneOf(OUTCOMES).required(), 'The new status.'),
    reason: describe(yup.string().max(500), 'Why (PENDING, DECLINED, CANCELLED).'),
    calendar_event_url: describe(yup.string(), 'Where the calendar event was written.'),
    connection_id: describe(yup.string().uuid(), 'The calendar it was written to.'),
  }),
  output: APPOINTMENT,
  doors: {},
  summary: (i) => `Record appointment ${i.appointmentId} as ${i.to}`,
  run: async (ctx, i) => {
    const to = i.to as AppointmentStatus;
    const row = await appointmentsIn(ctx.data).lock(i.appointmentId);
    if (!row) throw notFound('appointment');
    if (row.status === to) return appointmentView(row);
    if (!canMove(row.status, to))
      throw new DomainError('conflict', `The appointment is ${row.status}; it cannot become ${to}.`, {
        field: 'appointmentId',
        status: row.status,
      });
    const data = ctx.data.in(row.workspace_id);
    const now = await appointmentsIn(data).move(row.id, {
      status: to,
      reason: i.reason ?? null,
      ...(i.calendar_event_url ? { calendar_event_url: i.calendar_event_url } : {}),
      ...(i.connection_id ? { connection_id: i.connection_id } : {}),
    });
    const subject = { type: 'lead' as const, id: row.lead_id };
    const fields = meetingFields(now, row.status);
    let leadStatus: string | undefined;
    if (to === 'CONFIRMED') {
      await ctx.emit(row.workspace_id, 'meeting.booked', subject, fields);
      leadStatus = await bookLead(ctx, row.lead_id);
    } else if (to === 'PENDING') {
      await ctx.emit(row.workspace_id, 'meeting.pending', subject, fields);
      await flagForAttention(data, row.lead_id, true);
    } else {
      await ctx.emit(row.workspace_id, 'meeting.cancelled', subject, { ...fields, reason: i.reason ?? '' });
    }
    // The person it waited for has answered; the lead keeps the flag while another booking waits.
    if (row.status === 'PENDING' && !(await appointmentsIn(data).otherPending(row.lead_id, row.id)))
      await flagForAttention(data, row.lead_id, false);
    ctx.audit(row.workspace_id, {
      appointment_id: row.id,
      lead_id: row.lead_id,
      from: row.status,
      to,
      ...(i.reason ? { reason: i.reason } : {}),
      ...(leadStatus ? { lead_status: leadStatus } : {}),
    });
    return appointmentView(now);
  },
});
