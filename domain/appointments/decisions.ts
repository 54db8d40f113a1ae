import type { DataSource } from 'typeorm';
import * as yup from 'yup';
import { actorRef } from '../kernel/actor';
import { DomainError, notFound } from '../kernel/errors';
import { describe } from '../kernel/json-schema';
import { defineOperation, type BookingDecision } from '../kernel/operation';
import { LEADS_WRITE } from '../leads';
import { bookingNamed } from './bookings';
import { appointmentsIn } from './repository/appointments';
import type { AppointmentStatus } from './rules';
import { APPOINTMENT, type AppointmentView } from './views';
import { appointmentIdField } from './schemas';

const reasonField = (required: boolean) =>
  describe(
    (required ? yup.string().required('reason is required') : yup.string())
      .typeError('reason must be a string')
      .trim()
      .min(1, 'reason must not be empty')
      .max(500, 'reason must be at most 500 characters'),
    'Why, in a sentence; recorded and sent in meeting.cancelled.',
  );

/** What a decision makes of a booking, as a refusal says it cannot be done. */
const DONE = { confirm: 'confirmed', decline: 'declined', cancel: 'cancelled' } as const;

type Spec = {
  action: BookingDecision['action'];
  title: string;
  description: string;
  /** Where the booking must stand for the decision to make sense (checked again in its workflow). */
  from: readonly AppointmentStatus[];
  reasonRequired: boolean;
  admin: boolean;
  destructive: boolean;
};

/**
 * A person's decision goes to the booking's workflow as an Update: the workflow writes the calendar
 * event before confirming (so no caller ever sees a confirmed booking that is not on the calendar),
 * and removes it after a decline or a cancellation. The answer comes once both agree.
 */
export const decide = (s: Spec) =>
  defineOperation({
    name: `appointment.${s.action}`,
    title: s.title,
    description: s.description,
    returns: 'The appointment as it now stands.',
    requirement: LEADS_WRITE,
    reach: 'record',
    changes: true,
    inWorkflow: true,
    destructive: s.destructive,
    idempotent: false,
    gated: false,
    openWorld: true,
    input: yup.object({ appointmentId: appointmentIdField, reason: reasonField(s.reasonRequired) }),
    output: APPOINTMENT,
    doors: {
      mcp: true,
      ...(s.admin
        ? {
            admin: {
              command: `appointment ${s.action}`,
              flags: (f: Record<string, string>) => ({ appointmentId: f.id, reason: f.reason }),
            },
          }
        : {}),
    },
    summary: (i) => `${s.title}: ${i.appointmentId}`,
    run: async (ctx, i): Promise<AppointmentView> => {
      const row = await appointmentsIn(ctx.data).find(i.appointmentId);
      if (!row) throw notFound('appointment');
      if (!s.from.includes(row.status))
        throw new DomainError(
          'conflict',
          `The appointment is ${row.status}; only a ${s.from.join(' or ')} one can be ${DONE[s.action]}.`,
          { field: 'appointmentId', status: row.status },
        );
      const now = ctx.services.clock?.() ?? new Date();
      if (s.action === 'cancel' && row.starts_at <= now)
        throw new DomainError('conflict', 'The appointment has started; mark it a no-show instead.', {
          field: 'appointmentId',
        });
      const desk = ctx.services.appointments;
      return (await desk.decide(row.id, {
        action: s.action,
        ...(i.reason ? { reason: i.reason } : {}),
        by: { ...actorRef(ctx.actor), door: ctx.actor.ctx.door },
      })) as AppointmentView;
    },
  });

/**
 * A person's decision that the booking's workflow did not take, because it has ended (the start
 * passed, or it was declined or cancelled) or, `workflowGone`, Temporal has no such workflow: refused
 * saying where the booking stands, or not found. Returns only where the booking still waits and its
 * workflow is there, so the caller's own failure stands.
 */
export async function refuseLateBookingDecision(
  db: DataSource,
  appointmentId: string,
  action: BookingDecision['action'],
  workflowGone: boolean,
): Promise<void> {
  const row = await bookingNamed(db, appointmentId);
  if (!row) throw notFound('appointment');
  if (workflowGone || row.status !== 'PENDING')
    throw new DomainError(
      'conflict',
      `The appointment is ${row.status} and its start has passed or it is closed; it cannot be ${DONE[action]} now.`,
      { field: 'appointmentId', status: row.status },
    );
}
