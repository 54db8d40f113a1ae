import type { Appointment } from './entities';
import type { AppointmentStatus } from './rules';

/** booking.created's fields: a new booking has no previous status. */
export const bookingFields = (a: Appointment) => ({
  booking_id: a.id,
  lead_id: a.lead_id,
  provider: a.provider,
  status: a.status,
  starts_at: a.starts_at.toISOString(),
  ends_at: a.ends_at.toISOString(),
});

/** The spec's fields of every meeting.* event. */
export const meetingFields = (a: Appointment, previous: AppointmentStatus | null) => ({
  ...bookingFields(a),
  previous_status: previous,
});
