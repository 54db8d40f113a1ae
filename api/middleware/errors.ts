import type { Middleware } from 'koa';
import { DomainError } from '../../domain/kernel/errors';
import { loggedPath, maskedPath, type RequestState } from '../context';
import { databaseErrorKind, databaseUnavailable } from '../errors';
import { respondWith, serverFault } from '../respond';
import { DATABASE_UNAVAILABLE, unavailable } from '../unavailable';

/**
 * Maps every failure to the door's error shape. Only 4xx messages reach callers; anything else is
 * logged with the request id and answered as a bare server_error.
 */
export const errors = (): Middleware<RequestState> => async (ctx, next) => {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new DomainError('not_found', `No route for ${ctx.method} ${maskedPath(ctx.path)}.`);
    }
  } catch (err) {
    const refusal = err instanceof DomainError && err.code !== 'server_error' ? err : undefined;
    if (!refusal && databaseUnavailable(err)) {
      // An outage, not a bug: the caller is told to come back, and the log says why without a stack.
      const cause = err instanceof Error ? err.message : String(err);
      ctx.state.dbError = 'unavailable';
      ctx.state.log.warn('database unavailable; answered 503', { error: cause });
      ctx.state.auditReason = `database unavailable: ${cause}`.slice(0, 500);
      unavailable(ctx, DATABASE_UNAVAILABLE);
      return;
    }
    if (refusal) {
      if (refusal.auditReason) ctx.state.auditReason = refusal.auditReason;
      ctx.state.auditReason ??= refusal.message;
    } else {
      ctx.state.dbError = databaseErrorKind(err);
      ctx.state.log.error('request failed', {
        method: ctx.method,
        path: loggedPath(ctx),
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
      ctx.state.auditReason =
        err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 500) : 'unknown error';
    }
    respondWith(ctx, refusal ?? serverFault());
  }
};
