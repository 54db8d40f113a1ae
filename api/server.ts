import Koa from 'koa';
import type { DNSResolver } from 'mailauth';
import { Registry } from 'prom-client';
import type { Config } from '../infra/config';
import type { Logger } from '../infra/logger';
import { createAuditWriter } from './audit-writer';
import { httpMetrics } from './http-metrics';
import type { RequestState } from './context';
import { audit } from './middleware/audit';
import { deadline } from './middleware/deadline';
import { authenticate } from './middleware/authenticate';
import { refusedTraffic } from './middleware/refused-traffic';
import { errors } from './middleware/errors';
import { jsonBody } from './middleware/json-body';
import { rateLimit, rateLimitPolicy } from './middleware/rate-limit';
import { openApiRoute } from './openapi/route';
import { requestId } from './middleware/request-id';
import { traced } from './middleware/trace';
import { publicLimits } from './public/limits';
import { publicRouter } from './public/routes';
import { v1Router } from './rest/routes';
import { consoleRouter } from './console/router';
import { mcpDoor, mcpRoute } from './mcp/route';
import type { Services } from '../domain/kernel/operation';
import type { SigningJwk } from '../domain/oauth';
import type { DocumentPolicy } from './oauth/client-documents';
import { oauthDoor, resourceMetadataUrl } from './oauth/door';
import { authorizationServer, oauthCookieKeys } from './oauth/provider';
import { accessTokens } from './oauth/tokens';

export type AppDeps = {
  /** What its operations run with, built whole by the process's root (infra/services.ts). */
  services: Services;
  config: Pick<
    Config,
    'trustProxy' | 'rateLimitPerMinute' | 'requestTimeoutMs' | 'auditQueueLimit' | 'refusedPerMinute'
  > &
    Partial<
      Pick<
        Config,
        | 'mcpAllowedOrigins'
        | 'trustedProxyHops'
        | 'publicUrl'
        | 'sms'
        | 'quotePagePerMinute'
        | 'unsubscribePerMinute'
        | 'hooksPerMinute'
        | 'consoleSessions'
      >
    >;
  /** DNS for inbound mail's authentication (a test's own zone); the system's resolver when absent. */
  mailResolver?: DNSResolver;
  log: Logger;
  /** Where the API's series go (served by listen.ts on METRICS_PORT); a registry of its own when not given. */
  metrics?: Registry;
  /**
   * The authorization server hosted assistants connect through (OAuth on the assistant endpoint): its
   * signing keys (loaded by listen.ts) and how client metadata documents are fetched. Without it the
   * assistant endpoint takes keys only.
   */
  oauth?: { jwks: SigningJwk[]; documents: DocumentPolicy; registrationsPerMinute?: number };
};

/**
 * The HTTP door. Order matters: metrics, the trace, the request id and audit wrap everything, errors map whatever
 * happens inside, and a key is checked before its rate limit, its body, or its route.
 * No CORS middleware on purpose: keys are for servers, so browsers get no CORS headers at all.
 */
export function buildApp({ services, config, log, metrics, mailResolver, oauth }: AppDeps) {
  const { db } = services;
  const app = new Koa<RequestState>();
  // The client address is the one the trusted proxies appended: X-Forwarded-For's rightmost `hops`
  // entries. Anything left of them was written by the client and proves nothing.
  const hops = config.trustedProxyHops ?? (config.trustProxy ? 1 : 0);
  app.proxy = hops > 0;
  app.maxIpsCount = hops;
  app.silent = true;
  const routes = v1Router(services);
  const limits = publicLimits(db, {
    unsubscribePerMinute: config.unsubscribePerMinute ?? 30,
    quotePagePerMinute: config.quotePagePerMinute ?? 30,
    hooksPerMinute: config.hooksPerMinute ?? 1_200,
    refusedPerMinute: config.refusedPerMinute,
  });
  const publicDoor = publicRouter(services, limits, {
    publicUrl: config.publicUrl ?? 'http://localhost',
    ...(config.sms && { sms: { authToken: config.sms.authToken } }),
    ...(mailResolver && { mailResolver }),
  });
  const audits = createAuditWriter(db, config.auditQueueLimit);
  const publicUrl = config.publicUrl ?? services.publicUrl;
  const provider =
    oauth &&
    authorizationServer({
      db,
      publicUrl,
      jwks: oauth.jwks,
      cookieKeys: oauthCookieKeys(services.secretsKey),
      documents: oauth.documents,
    });
  if (provider) {
    // The provider's interaction cookies are set through this app's context: signed with its keys.
    app.keys = oauthCookieKeys(services.secretsKey);
    provider.proxy = app.proxy;
  }
  const metadataUrl = provider ? resourceMetadataUrl(publicUrl) : undefined;
  const consoleDoor = consoleRouter({
    services,
    publicUrl,
    session: config.consoleSessions ?? { idleMinutes: 30, maxHours: 12 },
    ...(provider && { authorizationServer: provider }),
  });
  app
    .use(
      httpMetrics(metrics ?? new Registry(), {
        db,
        audits,
        auditLimit: config.auditQueueLimit,
        rest: routes,
      }),
    )
    .use(traced())
    .use(requestId(log))
    .use(mcpDoor(metadataUrl))
    .use(deadline(config.requestTimeoutMs))
    .use(rateLimitPolicy(config.rateLimitPerMinute))
    .use(audit(audits))
    .use(errors())
    .use(openApiRoute())
    .use(consoleDoor.routes())
    .use(publicDoor.routes());
  if (provider)
    app.use(
      oauthDoor(services, provider, {
        publicUrl,
        registrationsPerMinute: oauth?.registrationsPerMinute ?? 10,
      }),
    );
  app
    .use(
      authenticate(
        db,
        refusedTraffic(config.refusedPerMinute),
        provider && accessTokens(provider, db, publicUrl),
      ),
    )
    .use(rateLimit(db, config.rateLimitPerMinute))
    .use(jsonBody())
    .use(mcpRoute(services, config.mcpAllowedOrigins ?? [], metadataUrl))
    .use(routes.routes());
  return app;
}
