import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { isIP } from 'node:net';
import { normaliseIp } from '../../domain/identity';
import type { Logger } from '../../infra/logger';
import { loggedPath, type RequestState } from '../context';

/**
 * Every response carries `Request-Id`; the same id lands in the audit row, in 500 bodies and, through
 * `ctx.state.log`, in every log line about the request.
 */
export const requestId =
  (log: Logger): Middleware<RequestState> =>
  async (ctx, next) => {
    const started = performance.now();
    ctx.state.requestId = `req_${randomUUID().replace(/-/g, '')}`;
    ctx.state.log = log.child({ request_id: ctx.state.requestId });
    // Not an address (a proxy passed garbage through): unknown, which an allowlist refuses.
    const ip = normaliseIp(ctx.request.ip);
    ctx.state.clientIp = ip && isIP(ip) ? ip : undefined;
    ctx.set('Request-Id', ctx.state.requestId);
    try {
      await next();
    } finally {
      // At debug: a line per request is more than production's default level should carry.
      ctx.state.log.debug('request done', {
        method: ctx.method,
        path: loggedPath(ctx),
        status: ctx.status,
        duration_ms: Math.round(performance.now() - started),
      });
    }
  };
