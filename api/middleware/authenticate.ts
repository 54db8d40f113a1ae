import type { Middleware } from 'koa';
import type { DataSource } from 'typeorm';
import { DomainError } from '../../domain/kernel/errors';
import { authenticateKey, bearerToken } from '../../domain/identity/authenticate';
import { refusalReason, type Requirement } from '../../domain/kernel/permissions';
import type { RequestState } from '../context';

/** Resolves the bearer key to a principal on every request; refusals all look the same. */
export const authenticate =
  (db: DataSource): Middleware<RequestState> =>
  async (ctx, next) => {
    const result = await authenticateKey(
      db,
      bearerToken(ctx.get('Authorization') || undefined),
      ctx.state.clientIp,
      { countRequest: true },
    );
    if (!result.ok) {
      ctx.state.presentedKey = {
        keyPrefix: result.keyPrefix,
        keyId: result.keyId,
        workspaceId: result.workspaceId,
      };
      throw new DomainError('unauthorized', 'unauthorized', {}, result.reason);
    }
    ctx.state.principal = result.principal;
    ctx.state.rate = result.rate;
    await next();
  };

/** Route guard: the key's scope AND the owner's live role; the narrower wins. */
export const requires =
  (need: Requirement): Middleware<RequestState> =>
  async (ctx, next) => {
    const reason = ctx.state.principal ? refusalReason(ctx.state.principal, need) : 'no principal';
    if (reason) throw new DomainError('forbidden', 'forbidden', {}, reason);
    await next();
  };
