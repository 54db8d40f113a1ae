import type { DataSource } from 'typeorm';
import { buildApp } from '../../api/server';
import { createLogger } from '../../infra/logger';

/** The Koa app as production builds it, for supertest against `app.callback()`. */
export const testApp = (db: DataSource, opts: { trustProxy?: boolean; rateLimitPerMinute?: number } = {}) =>
  buildApp({
    db,
    config: { trustProxy: opts.trustProxy ?? false, rateLimitPerMinute: opts.rateLimitPerMinute ?? 300 },
    log: createLogger('test-api', 'error'),
  }).callback();
