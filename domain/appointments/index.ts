/**
 * The appointments area: bookings on the workspace's calendar, decided by a person.
 * This file is its public face: nothing outside domain/appointments/ imports anything but this file.
 *
 * It offers its operations (list, get, book, confirm, decline, cancel, mark a no-show), its table, and
 * what the booking's workflow activities and the booking desk need: the booking's calendar, its view,
 * the operation that records where a booking now stands, and the refusal of a decision come too late.
 */

import { bookAppointment } from './operations/book';
import { cancelAppointment } from './operations/cancel';
import { confirmAppointment } from './operations/confirm';
import { declineAppointment } from './operations/decline';
import { getAppointment } from './operations/get';
import { listAppointments } from './operations/list';
import { markNoShow } from './operations/mark-no-show';
import { AppointmentEntity } from './entities';

/** The operations this area registers. */
export const operations = {
  listAppointments,
  getAppointment,
  bookAppointment,
  confirmAppointment,
  declineAppointment,
  cancelAppointment,
  markNoShow,
} as const;

/** Its tables. */
export const entities = [AppointmentEntity];

/** A booking, as its table holds it. */
export type { Appointment } from './entities';
/** Records where a booking now stands (run by its workflow once the calendar answered; no door offers it). */
export { recordOutcome } from './operations/record-outcome';
/** The workspace's connected CalDAV calendar, ready to talk to, or undefined when none is connected. */
export { calendarOf } from './calendar';
/** Statuses whose meeting may still happen. */
export { OPEN } from './rules';
/** The instant a booking time names, a time without an offset read in a time zone. */
export { instantOf } from './time';
/** A booking as every door shows it. */
export { appointmentView } from './views';
export type { AppointmentView } from './views';
/** A decision its workflow did not take, refused saying where the booking stands (the booking desk's). */
export { refuseLateBookingDecision } from './decisions';
/** A booking by id, its calendar event forgotten once removed, and those whose workflow never started. */
export { bookingNamed, forgetCalendarEvent, unstartedBookings } from './bookings';
