import Router from '@koa/router';
import type { DataSource } from 'typeorm';
import type { RequestState } from '../../context';
import { eventRoutes } from './events';
import { leadRoutes } from './leads';
import { meRoutes } from './me';

/** Every /api/v1 resource router, merged in one place. */
export function v1Routes(db: DataSource) {
  const router = new Router<RequestState>({ prefix: '/api/v1' });
  for (const resource of [meRoutes(db), leadRoutes(db), eventRoutes(db)]) router.use(resource.routes());
  return router;
}
