import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { BookingDecision } from '../kernel/operation';
import type { AppointmentView } from './views';

/**
 * What a booking's workflow (`workflows/appointment.ts`) and those who talk to it share. Pure
 * definitions, safe inside the workflow sandbox.
 */
export const APPOINTMENT_WORKFLOW_TYPE = 'appointmentWorkflow';

export type AppointmentInput = { appointmentId: string; startsAt: string };

/** A person confirms, declines or cancels; the answer is the booking once calendar and record agree. */
export const decideUpdate = defineUpdate<AppointmentView, [BookingDecision]>('decide');
export const statusQuery = defineQuery<string>('status');
