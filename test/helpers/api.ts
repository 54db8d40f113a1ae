import type { DataSource } from 'typeorm';
import { buildApp, type AppDeps } from '../../api/server';
import type { Services } from '../../domain/kernel/operation';
import { createLogger } from '../../infra/logger';
import { contractCheck } from './openapi-check';

/** The Koa app as production builds it, for supertest against `app.callback()`, checked against the contract. */
export const testApp = (
  db: DataSource,
  opts: {
    trustProxy?: boolean;
    rateLimitPerMinute?: number;
    approvals?: Services['approvals'];
    config?: Partial<AppDeps['config']>;
  } = {},
) => {
  const app = buildApp({
    db,
    approvals: opts.approvals,
    config: {
      trustProxy: opts.trustProxy ?? false,
      rateLimitPerMinute: opts.rateLimitPerMinute ?? 300,
      ...opts.config,
    },
    log: createLogger('test-api', 'error'),
  });
  // Every response a test receives is held to the OpenAPI document.
  app.middleware.unshift(contractCheck());
  return app.callback();
};
