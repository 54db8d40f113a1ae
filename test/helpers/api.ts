import type { DataSource } from 'typeorm';
import { buildApp } from '../../api/server';
import type { Services } from '../../domain/kernel/operation';
import { createLogger } from '../../infra/logger';
import { contractCheck } from './openapi-check';

/** The Koa app as production builds it, for supertest against `app.callback()`, checked against the contract. */
export const testApp = (
  db: DataSource,
  opts: { trustProxy?: boolean; rateLimitPerMinute?: number; approvals?: Services['approvals'] } = {},
) => {
  const app = buildApp({
    db,
    approvals: opts.approvals,
    config: { trustProxy: opts.trustProxy ?? false, rateLimitPerMinute: opts.rateLimitPerMinute ?? 300 },
    log: createLogger('test-api', 'error'),
  });
  // Every response a test receives is held to the OpenAPI document.
  app.middleware.unshift(contractCheck());
  return app.callback();
};
