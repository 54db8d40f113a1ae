import type { DataSource } from 'typeorm';
import { buildApp, type AppDeps } from '../../api/server';
import type { Ports } from '../../domain/kernel/operation';
import { createLogger, type Logger } from '../../infra/logger';
import { contractCheck } from './openapi-check';
import { SERVICE_DEFAULTS, testServices } from '../../tooling/services';

export { SERVICE_DEFAULTS } from '../../tooling/services';

/** The Koa app as production builds it, for supertest against `app.callback()`, checked against the contract. */
export const testApp = (
  db: DataSource,
  opts: {
    trustProxy?: boolean;
    rateLimitPerMinute?: number;
    /** The ports the test exercises (a gate on Temporal, an agents' scheduler); the test root's otherwise. */
    ports?: Partial<Ports>;
    config?: Partial<AppDeps['config']>;
    /** Where the API's series go, for a test that reads them. */
    metrics?: AppDeps['metrics'];
    /** DNS for inbound mail's authentication: the test's own zone. */
    mailResolver?: AppDeps['mailResolver'];
    /** Errors only, to stderr, unless a test captures the lines. */
    log?: Logger;
  } = {},
) => {
  const config = {
    ...SERVICE_DEFAULTS,
    trustProxy: opts.trustProxy ?? false,
    trustedProxyHops: opts.trustProxy ? 1 : 0,
    rateLimitPerMinute: opts.rateLimitPerMinute ?? SERVICE_DEFAULTS.rateLimitPerMinute,
    ...opts.config,
  };
  const app = buildApp({
    services: testServices(db, {
      secretsKey: config.secretsKey,
      mailFeedbackDomains: config.mailFeedbackDomains,
      ...opts.ports,
    }),
    mailResolver: opts.mailResolver,
    metrics: opts.metrics,
    config,
    log: opts.log ?? createLogger('test-api', 'error'),
  });
  // Every response a test receives is held to the OpenAPI document.
  app.middleware.unshift(contractCheck());
  return app.callback();
};
