import Router from '@koa/router';
import type { DataSource } from 'typeorm';
import { keyActor } from '../../../domain/actor';
import { listDeliveries } from '../../../domain/operations/deliveries';
import { singleValued } from '../../../domain/operations/search-leads';
import type { RequestState } from '../../context';
import { requires } from '../../middleware/authenticate';

/** GET /events: the workspace's webhook deliveries, for callers that cannot expose an endpoint. */
export function eventRoutes(db: DataSource) {
  const router = new Router<RequestState>();
  router.get('/events', requires({ scope: 'business:read', minRole: 'viewer' }), async (ctx) => {
    const p = ctx.state.principal!;
    const actor = keyActor(p, { door: 'rest', requestId: ctx.state.requestId, clientIp: ctx.state.clientIp });
    ctx.body = await listDeliveries(db, actor, p.workspaceId, singleValued(ctx.query));
  });
  return router;
}
