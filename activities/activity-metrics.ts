import type { AttemptOutcome } from './deliver';

/**
 * What the activities report for the worker's metrics (worker/worker-metrics.ts counts them). Only ids-free
 * values: an outcome, a status, a duration; never an endpoint, a lead or an address.
 */
export type ActivityMetrics = {
  /** A webhook attempt that was made (a POST, or a target refused before it), with how long it took. */
  attempt: (outcome: AttemptOutcome['outcome'], seconds: number) => void;
  /**
   * An attempt that found another run of its delivery's attempt holding it (issue 57): `in_flight`, still
   * being sent (it waits, sending nothing); `expired`, its holder's time up with no record (the worker
   * died): made again under its own number.
   */
  attemptRerun: (found: 'in_flight' | 'expired') => void;
  /** A delivery that ended: delivered, given up after its last attempt, or cancelled. */
  delivery: (outcome: 'succeeded' | 'exhausted' | 'cancelled') => void;
  /** An endpoint disabled after too many deliveries in a row failed. */
  endpointDisabled: () => void;
  /** An approval request moved to `status` (APPROVED, REJECTED, EXECUTED, FAILED, EXPIRED). */
  approval: (status: string) => void;
};

export const NO_METRICS: ActivityMetrics = {
  attempt: () => undefined,
  attemptRerun: () => undefined,
  delivery: () => undefined,
  endpointDisabled: () => undefined,
  approval: () => undefined,
};
