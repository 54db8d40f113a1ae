import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { isIP } from 'node:net';
import { normaliseIp } from '../../domain/identity/ip-allowlist';
import type { RequestState } from '../context';

/** Every response carries `Request-Id`; the same id lands in the audit row and in 500 bodies. */
export const requestId = (): Middleware<RequestState> => async (ctx, next) => {
  ctx.state.requestId = `req_${randomUUID().replace(/-/g, '')}`;
  // Not an address (a proxy passed garbage through): unknown, which an allowlist refuses.
  const ip = normaliseIp(ctx.request.ip);
  ctx.state.clientIp = ip && isIP(ip) ? ip : undefined;
  ctx.set('Request-Id', ctx.state.requestId);
  await next();
};
