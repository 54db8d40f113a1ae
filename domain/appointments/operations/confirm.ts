import { decide } from '../decisions';

export const confirmAppointment = decide({
  action: 'confirm',
  title: 'Confirm an appointment',
  description:
    'Confirms a PENDING appointment (one no calendar could confirm): the event is written to the connected calendar, the lead moves to BOOKED, and meeting.booked is sent.',
  from: ['PENDING'],
  reasonRequired: false,
  admin: true,
  destructive: false,
});
