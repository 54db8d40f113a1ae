import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { normaliseIp } from '../../domain/identity/ip-allowlist';
import type { RequestState } from '../context';

/** Every response carries `Request-Id`; the same id lands in the audit row and in 500 bodies. */
export const requestId = (): Middleware<RequestState> => async (ctx, next) => {
  ctx.state.requestId = `req_${randomUUID().replace(/-/g, '')}`;
  ctx.state.clientIp = normaliseIp(ctx.request.ip);
  ctx.set('Request-Id', ctx.state.requestId);
  await next();
};
