import { ApplicationFailure } from '@temporalio/common';
import { DomainError } from '../../domain/kernel/errors';
import { REFUSAL, type CarriedRefusal } from '../../workflows/refusals';

const asFailure = (err: DomainError) =>
  ApplicationFailure.create({
    type: REFUSAL,
    message: err.message,
    nonRetryable: true,
    details: [
      { code: err.code, details: err.details, auditReason: err.auditReason } satisfies CarriedRefusal,
    ],
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
      const carried = (e.details?.[0] ?? {}) as Partial<CarriedRefusal>;
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
