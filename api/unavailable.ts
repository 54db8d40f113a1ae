import type { Middleware } from 'koa';
import { DomainError } from '../domain/kernel/errors';
import type { RequestState } from './context';
import { toHttp } from './errors';

export const DATABASE_UNAVAILABLE = 'The service cannot reach its database just now; retry later.';

/** Seconds a caller is told to wait after a 503. */
export const RETRY_AFTER_UNAVAILABLE = 5;

/** The 503 for a request the service cannot take or finish now; it carries the request id. */
export function unavailable(ctx: Parameters<Middleware<RequestState>>[0], message: string) {
  const answer = toHttp(
    new DomainError('unavailable', message, { retry_after: RETRY_AFTER_UNAVAILABLE }),
    ctx.state.requestId,
  );
  ctx.status = answer.status;
  ctx.body = answer.body;
  ctx.set('Retry-After', String(RETRY_AFTER_UNAVAILABLE));
}
