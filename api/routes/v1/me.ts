import Router from '@koa/router';
import type { DataSource } from 'typeorm';
import { getMe } from '../../../domain/operations/get-me';
import type { RequestState } from '../../context';
import { requires } from '../../middleware/authenticate';

export function meRoutes(db: DataSource) {
  const router = new Router<RequestState>();
  router.get('/me', requires({ scope: 'business:read', minRole: 'viewer' }), async (ctx) => {
    ctx.body = await getMe(db, ctx.state.principal!);
  });
  return router;
}
