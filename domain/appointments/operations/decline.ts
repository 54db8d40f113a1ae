import { decide } from '../decisions';

export const declineAppointment = decide({
  action: 'decline',
  title: 'Decline an appointment',
  description: 'Declines a PENDING appointment; meeting.cancelled is sent with the reason.',
  from: ['PENDING'],
  reasonRequired: false,
  admin: true,
  destructive: true,
});
