import type { DataSource } from 'typeorm';
import { buildApp, type AppDeps } from '../../api/server';
import type { Services } from '../../domain/kernel/operation';
import { loadConfig } from '../../infra/config';
import { createLogger, type Logger } from '../../infra/logger';
import { contractCheck } from './openapi-check';

/** The services' settings as configured by default (the URLs are never dialled here). */
export const SERVICE_DEFAULTS = loadConfig({
  NODE_ENV: 'test',
  DATABASE_URL: 'postgres://unused',
  TEMPORAL_ADDRESS: 'unused:7233',
});

/** The Koa app as production builds it, for supertest against `app.callback()`, checked against the contract. */
export const testApp = (
  db: DataSource,
  opts: {
    trustProxy?: boolean;
    rateLimitPerMinute?: number;
    approvals?: Services['approvals'];
    agents?: Services['agents'];
    config?: Partial<AppDeps['config']>;
    /** Where the API's series go, for a test that reads them. */
    metrics?: AppDeps['metrics'];
    /** DNS for inbound mail's authentication: the test's own zone. */
    mailResolver?: AppDeps['mailResolver'];
    /** Errors only, to stderr, unless a test captures the lines. */
    log?: Logger;
  } = {},
) => {
  const app = buildApp({
    db,
    approvals: opts.approvals,
    agents: opts.agents,
    mailResolver: opts.mailResolver,
    metrics: opts.metrics,
    config: {
      ...SERVICE_DEFAULTS,
      trustProxy: opts.trustProxy ?? false,
      trustedProxyHops: opts.trustProxy ? 1 : 0,
      rateLimitPerMinute: opts.rateLimitPerMinute ?? SERVICE_DEFAULTS.rateLimitPerMinute,
      ...opts.config,
    },
    log: opts.log ?? createLogger('test-api', 'error'),
  });
  // Every response a test receives is held to the OpenAPI document.
  app.middleware.unshift(contractCheck());
  return app.callback();
};
