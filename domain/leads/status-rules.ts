export const LEAD_STATUSES = ['NEW', 'CONTACTED', 'RESPONDED', 'QUALIFIED', 'BOOKED', 'WON', 'LOST'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

/** The application's status rules (decisions.md): from → allowed targets. */
export const ALLOWED_MOVES: Record<LeadStatus, readonly LeadStatus[]> = {
  NEW: ['CONTACTED', 'RESPONDED', 'QUALIFIED', 'BOOKED', 'LOST'],
  CONTACTED: ['RESPONDED', 'QUALIFIED', 'BOOKED', 'LOST'],
  RESPONDED: ['CONTACTED', 'QUALIFIED', 'BOOKED', 'LOST'],
  QUALIFIED: ['CONTACTED', 'BOOKED', 'WON', 'LOST'],
  BOOKED: ['QUALIFIED', 'WON', 'LOST'],
  WON: ['LOST'],
  LOST: ['NEW', 'CONTACTED'],
};

export const canMove = (from: LeadStatus, to: LeadStatus) => ALLOWED_MOVES[from].includes(to);

/** Moving to a closed status stops follow-up. */
export const CLOSED: readonly LeadStatus[] = ['WON', 'LOST'];
