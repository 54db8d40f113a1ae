import type { Middleware } from 'koa';
import type { RequestState } from '../context';
import { openApiDocument } from './document';

const PATH = '/api/v1/openapi.json';

/** The contract, served read-only and without auth (before the key check), like Stripe's and GitHub's. */
export const openApiRoute = (): Middleware<RequestState> => {
  const body = JSON.stringify(openApiDocument());
  return async (ctx, next) => {
    if (ctx.path !== PATH || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) {
      await next();
      return;
    }
    ctx.type = 'application/json';
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = body;
  };
};
