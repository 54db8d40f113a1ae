import type { Middleware } from 'koa';
import mount from 'koa-mount';
import type Provider from 'oidc-provider';
import { operatorActor } from '../../domain/kernel/actor';
import { Data } from '../../domain/kernel/data';
import { DomainError } from '../../domain/kernel/errors';
import type { Services } from '../../domain/kernel/operation';
import { SCOPES } from '../../domain/kernel/permissions';
import { publicWindowsIn } from '../../domain/kernel/public-limits';
import { runOperation } from '../../domain/kernel/runner';
import { connectionByGrant, operations } from '../../domain/oauth';
import type { RequestState } from '../context';
import { bucketOf } from '../middleware/refused-traffic';
import { issuerOf, mcpResource } from './provider';

/** Where the assistant endpoint's Protected Resource Metadata (RFC 9728) is: the path-suffixed form and the root. */
export const resourceMetadataUrl = (publicUrl: string) =>
  `${issuerOf(publicUrl)}/.well-known/oauth-protected-resource/api/mcp`;

const RESOURCE_METADATA_PATHS = new Set([
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/api/mcp',
]);
/** RFC 8414's and OpenID's discovery at the root, where clients look for an issuer without a path. */
const SERVER_METADATA_PATHS = new Set([
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
]);

export type OauthDoorSettings = {
  publicUrl: string;
  /** Client registrations a minute per client address (IPv6 per /64). */
  registrationsPerMinute: number;
};

/**
 * The authorization server's door: its metadata and the resource's, its endpoints under /oauth (the
 * provider, mounted), client registration rate-limited per address. Every request is audited as door
 * `oauth`, each refusal with the precise reason the provider found.
 */
export function oauthDoor(
  services: Services,
  provider: Provider,
  settings: OauthDoorSettings,
): Middleware<RequestState> {
  const resource = mcpResource(settings.publicUrl);
  const windows = publicWindowsIn(new Data(services.db.manager, undefined));
  const mounted = mount('/oauth', provider);

  // The provider ends a grant itself when a refresh token or a code is used twice, or when its client
  // revokes a token: the connection ends with it (revoked, its parked requests withdrawn) right after.
  provider.on('grant.revoked', (ctx: { state?: RequestState }, grantId: string) => {
    void (async () => {
      const connection = await connectionByGrant(new Data(services.db.manager, undefined), grantId);
      if (!connection) return;
      await runOperation(
        services,
        operations.revokeAssistantConnection,
        operatorActor({
          door: 'oauth',
          requestId: ctx.state?.requestId,
          clientIp: ctx.state?.clientIp,
          clientId: connection.client_id,
        }),
        { id: connection.key_id },
      );
    })().catch((err: unknown) =>
      ctx.state?.log.error('ending the connection of a revoked grant failed', { error: String(err) }),
    );
  });

  const registrationLimit: Middleware<RequestState> = async (ctx, next) => {
    // Every spelling the provider's router takes for its registration endpoint (a trailing slash, any case).
    if (ctx.method === 'POST' && /^\/oauth\/reg\/?$/i.test(ctx.path)) {
      const { hits, reset } = await windows.count(`oauth_register:${bucketOf(ctx.state.clientIp)}`);
      const limit = settings.registrationsPerMinute;
      ctx.set('RateLimit', `"oauth_register";r=${Math.max(0, limit - hits)};t=${reset}`);
      if (hits > limit) {
        ctx.state.rateLimited = 'address';
        ctx.state.auditReason = `client registration limit of ${limit}/min per address`;
        ctx.set('Retry-After', String(reset));
        ctx.status = 429;
        ctx.body = {
          error: 'rate_limited',
          error_description: `Too many registrations; retry after ${reset} seconds.`,
        };
        return;
      }
    }
    await next();
  };

  return async (ctx, next) => {
    const path = ctx.path;
    const ours = path === '/oauth' || path.startsWith('/oauth/') || path.startsWith('/.well-known/');
    if (!ours) {
      await next();
      return;
    }
    ctx.state.auditDoor = 'oauth';
    ctx.state.auditAction =
      `oauth ${ctx.method} ${path.startsWith('/.well-known/') ? path : path.replace(/^\/oauth\/(auth|session\/end\/confirm)\/.*/, '/oauth/$1/*')}`.slice(
        0,
        100,
      );
    if (ctx.method === 'GET' && RESOURCE_METADATA_PATHS.has(path)) {
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = {
        resource,
        authorization_servers: [issuerOf(settings.publicUrl)],
        scopes_supported: [...SCOPES],
        bearer_methods_supported: ['header'],
        resource_name: 'Lead service assistant endpoint',
      };
      return;
    }
    if (ctx.method === 'GET' && SERVER_METADATA_PATHS.has(path))
      ctx.path = '/oauth/.well-known/openid-configuration';
    if (ctx.path.startsWith('/.well-known/')) throw new DomainError('not_found', `No metadata at ${path}.`);
    await registrationLimit(ctx, async () => {
      await mounted(ctx, next);
    });
  };
}
