/** Where a booking stands; REQUESTED only until its workflow has asked the calendar. */
export const APPOINTMENT_STATUSES = [
  'REQUESTED',
  'PENDING',
  'CONFIRMED',
  'DECLINED',
  'CANCELLED',
  'NO_SHOW',
] as const;
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];

/** The longest booking: longer is surely a typo (Cal.com's longest event types are a working day). */
export const MAX_HOURS = 8;

/** The moves a booking can make; anything else is refused with `conflict`. */
const MOVES: Record<AppointmentStatus, readonly AppointmentStatus[]> = {
  REQUESTED: ['CONFIRMED', 'PENDING', 'CANCELLED'],
  PENDING: ['CONFIRMED', 'DECLINED', 'CANCELLED'],
  CONFIRMED: ['CANCELLED', 'NO_SHOW'],
  DECLINED: [],
  CANCELLED: [],
  NO_SHOW: [],
};

export const canMove = (from: AppointmentStatus, to: AppointmentStatus) => MOVES[from].includes(to);

/** Statuses whose meeting may still happen: a calendar event may exist, and the workflow still waits. */
export const OPEN: readonly AppointmentStatus[] = ['REQUESTED', 'PENDING', 'CONFIRMED'];
