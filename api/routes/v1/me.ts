import Router from '@koa/router';
import { getWorkspace } from '../../../domain/identity/operations/workspaces';
import type { Services } from '../../../domain/kernel/operation';
import { runOperation } from '../../../domain/kernel/runner';
import type { RequestState } from '../../context';
import { mapRoute, restActor } from './route';

export function meRoutes(services: Services) {
  const router = new Router<RequestState>();
  mapRoute(router, 'get', '/me', [getWorkspace], async (ctx) => {
    ctx.body = await runOperation(services, getWorkspace, restActor(ctx), {});
  });
  return router;
}
