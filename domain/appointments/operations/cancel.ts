import { decide } from '../decisions';

export const cancelAppointment = decide({
  action: 'cancel',
  title: 'Cancel an appointment',
  description:
    'Cancels an appointment that has not started (requested, pending or confirmed), with a reason: the calendar event is removed and meeting.cancelled is sent.',
  from: ['REQUESTED', 'PENDING', 'CONFIRMED'],
  reasonRequired: true,
  admin: false,
  destructive: true,
});
