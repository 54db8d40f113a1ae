import type { Middleware } from 'koa';
import type { DataSource } from 'typeorm';
import { dropOldWindows } from '../../domain/identity';
import { Data } from '../../domain/kernel/data';
import { DomainError } from '../../domain/kernel/errors';
import type { RequestState } from '../context';

const WINDOW_SECONDS = 60;

/** `RateLimit-Policy` on every response, refusals before the key is known included. */
export const rateLimitPolicy =
  (limit: number): Middleware<RequestState> =>
  async (ctx, next) => {
    ctx.set('RateLimit-Policy', `"default";q=${limit};w=${WINDOW_SECONDS}`);
    await next();
  };

/**
 * Fixed one-minute windows counted in PostgreSQL, so every API process shares one count per key.
 * Headers follow the IETF RateLimit fields draft: `RateLimit-Policy` and `RateLimit`.
 */
export const rateLimit =
  (db: DataSource, limit: number): Middleware<RequestState> =>
  async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) {
      await next();
      return;
    }
    // Counted by the key lookup in the same round trip (authenticateKey); the count lives there only.
    if (!ctx.state.rate) throw new Error('rate limit: the key lookup did not count this request');
    const { hits, reset } = ctx.state.rate;
    if (hits === 1) {
      // A new window: drop this key's old ones. Not awaited; a failure only leaves a stale row behind.
      dropOldWindows(new Data(db.manager, undefined), principal.keyId).catch(() => undefined);
    }
    ctx.set('RateLimit', `"default";r=${Math.max(0, limit - hits)};t=${reset}`);
    if (hits > limit) {
      ctx.state.rateLimited = 'key';
      ctx.set('Retry-After', String(reset));
      throw new DomainError(
        'rate_limited',
        `More than ${limit} requests a minute for this key; retry after ${reset} seconds.`,
        { retry_after: reset },
        `rate limit of ${limit}/min exceeded`,
      );
    }
    await next();
  };
