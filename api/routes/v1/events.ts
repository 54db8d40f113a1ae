import Router from '@koa/router';
import type { Services } from '../../../domain/kernel/operation';
import { runOperation } from '../../../domain/kernel/runner';
import { listDeliveries } from '../../../domain/webhooks/operations/deliveries';
import type { RequestState } from '../../context';
import { singleValued } from '../../query';
import { mapRoute, restActor } from './route';

/** GET /events: the workspace's webhook deliveries, for callers that cannot expose an endpoint. */
export function eventRoutes(services: Services) {
  const router = new Router<RequestState>();
  mapRoute(router, 'get', '/events', [listDeliveries], async (ctx) => {
    ctx.body = await runOperation(services, listDeliveries, restActor(ctx), singleValued(ctx.query));
  });
  return router;
}
