import type { Middleware } from 'koa';
import type { DataSource } from 'typeorm';
import { Data } from '../../domain/kernel/data';
import { DomainError } from '../../domain/kernel/errors';
import { publicWindowsIn } from '../../domain/kernel/public-limits';
import type { AppContext, RequestState } from '../context';
import { bucketOf } from '../middleware/refused-traffic';

/** The public route families, each with its own limit. */
export type PublicFamily = 'unsubscribe' | 'quote_page' | 'hooks';

export type PublicLimitSettings = {
  /** Requests a minute per client address on unsubscribe links (`UNSUBSCRIBE_PER_MINUTE`). */
  unsubscribePerMinute: number;
  /** Requests a minute per client address on quote pages (`QUOTE_PAGE_PER_MINUTE`). */
  quotePagePerMinute: number;
  /** Proven provider webhooks a minute per workspace (`HOOKS_PER_MINUTE`). */
  hooksPerMinute: number;
  /** Provider webhooks whose proof failed, a minute per client address (`REFUSED_PER_MINUTE`). */
  refusedPerMinute: number;
};

/**
 * Rate limits on the doors without an API key, counted in PostgreSQL so every API process shares one
 * count (IETF RateLimit fields, `Retry-After` on 429):
 * - unsubscribe links and quote pages per client address (IPv6 per /64): enough for a person, too
 *   few to try tokens;
 * - provider webhooks per workspace, counted once their signature or secret is proven, so forged
 *   requests cannot spend a workspace's budget; the forged ones are counted per client address, and
 *   an address past its limit is refused before anything is checked.
 */
export function publicLimits(db: DataSource, settings: PublicLimitSettings) {
  const windows = publicWindowsIn(new Data(db.manager, undefined));
  const refuse = (ctx: AppContext, family: RequestState['rateLimited'], reset: number, reason: string) => {
    ctx.state.rateLimited = family;
    ctx.state.refusal = 'rate_limited';
    ctx.state.auditReason = reason;
    ctx.set('Retry-After', String(reset));
  };
  const hookFailures = (ctx: AppContext) => `hooks-refused:${bucketOf(ctx.state.clientIp)}`;
  return {
    /**
     * A page family's limit per client address; past it the page `tooMany` renders is answered 429
     * (the family's pages are HTML, so is their refusal).
     */
    perAddress:
      (family: 'unsubscribe' | 'quote_page', tooMany: (ctx: AppContext) => void): Middleware<RequestState> =>
      async (ctx, next) => {
        const limit = family === 'unsubscribe' ? settings.unsubscribePerMinute : settings.quotePagePerMinute;
        const { hits, reset } = await windows.count(`${family}:${bucketOf(ctx.state.clientIp)}`);
        ctx.set('RateLimit', `"${family}";r=${Math.max(0, limit - hits)};t=${reset}`);
        if (hits <= limit) {
          await next();
          return;
        }
        ctx.state.auditDoor = 'public';
        ctx.state.auditAction = `${family.replace('_', '.')}.rate_limited`;
        refuse(ctx, family, reset, `${family} rate limit of ${limit}/min per address`);
        tooMany(ctx);
      },

    /**
     * Provider webhooks from an address whose proofs keep failing: refused before anything is checked
     * once it is past its limit; each failed proof (401) is counted against it.
     */
    refusedHooks: (): Middleware<RequestState> => async (ctx, next) => {
      const blocked = await windows.peek(hookFailures(ctx));
      if (blocked.hits >= settings.refusedPerMinute) {
        refuse(ctx, 'hooks_refused', blocked.reset, 'too many failed webhook proofs from this address');
        throw rateLimited(
          settings.refusedPerMinute,
          blocked.reset,
          'failed webhook proofs from this address',
        );
      }
      try {
        await next();
      } catch (err) {
        if (err instanceof DomainError && err.code === 'unauthorized') await windows.count(hookFailures(ctx));
        throw err;
      }
    },

    /** Counts a proven webhook against its workspace's budget; past it, refused 429 (the provider retries). */
    hook: async (ctx: AppContext, workspaceId: string): Promise<void> => {
      const limit = settings.hooksPerMinute;
      const { hits, reset } = await windows.count(`hooks:${workspaceId}`);
      ctx.set('RateLimit', `"hooks";r=${Math.max(0, limit - hits)};t=${reset}`);
      if (hits <= limit) return;
      refuse(ctx, 'hooks', reset, `webhook rate limit of ${limit}/min per workspace`);
      throw rateLimited(limit, reset, 'webhooks for this workspace');
    },
  };
}
export type PublicLimits = ReturnType<typeof publicLimits>;

const rateLimited = (limit: number, reset: number, what: string) =>
  new DomainError('rate_limited', `More than ${limit} ${what} a minute; retry after ${reset} seconds.`, {
    retry_after: reset,
  });
