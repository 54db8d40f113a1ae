import type { Middleware } from 'koa';
import type { DataSource } from 'typeorm';
import { DomainError } from '../../domain/kernel/errors';
import {
  authenticateCredential,
  authenticateKey,
  bearerToken,
  type AuthResult,
  type KeyLookup,
  looksLikeApiKey,
  presentedKeys,
} from '../../domain/identity';
import { Data } from '../../domain/kernel/data';
import { batched } from '../../infra/batch';
import type { AppContext, RequestState } from '../context';
import { MCP_PATH } from '../mcp/route';
import type { TokenLookup } from '../oauth/tokens';
import type { RefusedTraffic } from './refused-traffic';

/**
 * Resolves the bearer key to a principal on every request; refusals all look the same. An address
 * with too many refused requests this minute gets 429 before its key is looked up. On the assistant
 * endpoint, a bearer that is not a key is an OAuth access token: the assistant connection it stands
 * for is then checked exactly as a key is.
 */
export const authenticate = (
  db: DataSource,
  refused: RefusedTraffic,
  accessTokens?: TokenLookup,
): Middleware<RequestState> => {
  // Requests arriving together share one lookup and one commit of their rate-limit counts.
  const lookup: KeyLookup = batched((presentations) =>
    presentedKeys(new Data(db.manager, undefined), presentations),
  );
  const credentialOf = async (ctx: AppContext, presented: string | undefined): Promise<AuthResult> => {
    const opts = { countRequest: true, lookup };
    if (presented && accessTokens && ctx.path === MCP_PATH && !looksLikeApiKey(presented)) {
      const found = await accessTokens(presented);
      if ('refused' in found) return { ok: false, reason: found.refused };
      return authenticateCredential(db, found, ctx.state.clientIp, opts);
    }
    return authenticateKey(db, presented, ctx.state.clientIp, opts);
  };
  return async (ctx, next) => {
    // Without a key, the limit that applies is the address's, not a key's: its own named policy.
    const refusedPolicy = (remaining: number, reset: number) => {
      ctx.set('RateLimit-Policy', `"refused";q=${refused.perMinute};w=60`);
      ctx.set('RateLimit', `"refused";r=${remaining};t=${reset}`);
    };
    const wait = refused.blockedFor(ctx.state.clientIp);
    if (wait !== undefined) {
      ctx.state.rateLimited = 'address';
      refusedPolicy(0, wait);
      throw new DomainError(
        'rate_limited',
        `Too many refused requests from this address; retry after ${wait} seconds.`,
        { retry_after: wait },
        'too many refused requests from this address',
      );
    }
    const result = await credentialOf(ctx, bearerToken(ctx.get('Authorization') || undefined));
    if (!result.ok) {
      // Each refusal spends the address's allowance: the 401 says how much is left before the 429.
      const left = refused.refused(ctx.state.clientIp);
      refusedPolicy(left.remaining, left.reset);
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
};
