import { dateTime, nullable, object, oneOf, page, string, uuid, boolean } from '../kernel/shapes';
import type { Appointment } from './entities';
import { APPOINTMENT_STATUSES } from './rules';

export const appointmentView = (a: Appointment) => ({
  id: a.id,
  lead_id: a.lead_id,
  status: a.status,
  starts_at: a.starts_at.toISOString(),
  ends_at: a.ends_at.toISOString(),
  timezone: a.timezone,
  title: a.title,
  note: a.note,
  provider: a.provider,
  on_calendar: a.calendar_event_url !== null,
  reason: a.reason,
  created_at: a.created_at.toISOString(),
  updated_at: a.updated_at.toISOString(),
});
export type AppointmentView = ReturnType<typeof appointmentView>;

export const APPOINTMENT = object(
  {
    id: uuid,
    lead_id: uuid,
    status: oneOf(APPOINTMENT_STATUSES),
    starts_at: dateTime,
    ends_at: dateTime,
    timezone: string({ description: 'The IANA zone the times were given in.' }),
    title: string(),
    note: nullable(string()),
    provider: string({ description: '"caldav" (a connected calendar) or "manual" (a person confirms).' }),
    on_calendar: { ...boolean, description: 'Whether the event is written on the connected calendar.' },
    reason: nullable(string({ description: 'Why it is PENDING, DECLINED or CANCELLED.' })),
    created_at: dateTime,
    updated_at: dateTime,
  },
  { title: 'Appointment' },
);

export const APPOINTMENT_LIST = page(APPOINTMENT, { title: 'AppointmentList' });
