import type { BookingDecision } from '../kernel/operation';
import type { AppointmentView } from './views';

/**
 * What a booking's workflow (`workflows/appointment.ts`) and those who talk to it share. Types only,
 * safe inside the workflow sandbox; the workflow defines its messages beside itself.
 */
export type AppointmentInput = { appointmentId: string; startsAt: string };

/** A person's confirmation, decline or cancellation, as the workflow's `decide` Update takes it. */
export type AppointmentDecision = BookingDecision;
/** The booking once calendar and record agree: the `decide` Update's answer. */
export type AppointmentAnswer = AppointmentView;
