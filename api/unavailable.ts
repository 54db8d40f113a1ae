import type { ParameterizedContext } from 'koa';
import { DomainError } from '../domain/kernel/errors';
import type { RequestState } from './context';
import { respondWith } from './respond';

export const DATABASE_UNAVAILABLE = 'The service cannot reach its database just now; retry later.';

/** Seconds a caller is told to wait after a 503. */
const RETRY_AFTER_UNAVAILABLE = 5;

/** The 503 for a request the service cannot take or finish now; it carries the request id. */
export function unavailable(ctx: ParameterizedContext<RequestState>, message: string) {
  respondWith(ctx, new DomainError('unavailable', message, { retry_after: RETRY_AFTER_UNAVAILABLE }));
}
