import Router from '@koa/router';
import type { Services } from '../../../domain/kernel/operation';
import type { RequestState } from '../../context';
import { eventRoutes } from './events';
import { leadRoutes } from './leads';
import { meRoutes } from './me';

/** Every /api/v1 resource router, merged in one place. */
export function v1Routes(services: Services) {
  const router = new Router<RequestState>({ prefix: '/api/v1' });
  for (const resource of [meRoutes(services), leadRoutes(services), eventRoutes(services)])
    router.use(resource.routes());
  return router;
}
