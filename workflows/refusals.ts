import { ApplicationFailure } from '@temporalio/workflow';
import type { ErrorCode } from '../domain/kernel/errors';

/** The failure type a refusal travels under through Temporal (activities, workflows, Updates). */
export const REFUSAL = 'DomainError';

/** What a refusal's failure carries in its details, so the one who waits gets the same refusal back. */
export type CarriedRefusal = { code: ErrorCode; details?: Record<string, unknown>; auditReason?: string };

/**
 * A refusal as a Temporal failure that is not retried and keeps its code, so whoever waits on the
 * workflow (an admin deciding through an Update) gets the same refusal the domain made.
 */
export const refusalFailure = (code: ErrorCode, message: string, details?: Record<string, unknown>) =>
  ApplicationFailure.create({
    type: REFUSAL,
    message,
    nonRetryable: true,
    details: [{ code, details } satisfies CarriedRefusal],
  });
