import type { DataSource } from 'typeorm';
import { Data } from '../kernel/data';
import type { Appointment } from './entities';
import { appointmentsIn } from './repository/appointments';

/** A booking by id, in any workspace (its workflow and activities act on it by id), or null. */
export const bookingNamed = (db: DataSource, appointmentId: string): Promise<Appointment | null> =>
  appointmentsIn(new Data(db.manager, undefined)).find(appointmentId);

/** The booking's calendar event is gone (removed from the calendar): it no longer names one. */
export const forgetCalendarEvent = async (data: Data, appointmentId: string): Promise<void> => {
  await appointmentsIn(data).move(appointmentId, { calendar_event_url: null });
};

/**
 * Bookings of the last hour, past `graceMinutes`, whose workflow may never have started (any
 * workspace): the reconciler starts them.
 */
export const unstartedBookings = (db: DataSource, graceMinutes: number, batch: number) =>
  appointmentsIn(new Data(db.manager, undefined)).unstarted(graceMinutes, batch);
