import { ApplicationFailure } from '@temporalio/common';
import { DomainError, type ErrorCode } from './errors';

/** The failure type a refusal travels under through Temporal (activities, workflows, Updates). */
const REFUSAL = 'DomainError';

type Carried = { code: ErrorCode; details?: Record<string, unknown>; auditReason?: string };

/**
 * A refusal as a Temporal failure that is not retried and keeps its code, so whoever waits on the
 * workflow (an admin deciding through an Update) gets the same refusal the domain made.
 */
export const refusalFailure = (code: ErrorCode, message: string, details?: Record<string, unknown>) =>
  ApplicationFailure.create({
    type: REFUSAL,
    message,
    nonRetryable: true,
    details: [{ code, details } satisfies Carried],
  });

const asFailure = (err: DomainError) =>
  ApplicationFailure.create({
    type: REFUSAL,
    message: err.message,
    nonRetryable: true,
    details: [{ code: err.code, details: err.details, auditReason: err.auditReason } satisfies Carried],
  });

/** Runs an activity's work: a refusal becomes a failure that keeps its code; our own faults are retried. */
export async function refusalsAsFailures<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof DomainError) throw asFailure(err);
    throw err;
  }
}

/** The refusal a Temporal failure carries, wherever it sits in the cause chain; undefined for a fault. */
export function refusalOf(err: unknown): DomainError | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof ApplicationFailure && e.type === REFUSAL) {
      const carried = (e.details?.[0] ?? {}) as Partial<Carried>;
      return new DomainError(
        carried.code ?? 'conflict',
        e.message,
        carried.details ?? {},
        carried.auditReason,
      );
    }
  }
  return undefined;
}
