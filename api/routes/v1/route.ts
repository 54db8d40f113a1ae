import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { keyActor } from '../../../domain/kernel/actor';
import type { AnyOperation } from '../../../domain/kernel/operation';
import type { AppContext, RequestState } from '../../context';
import { requires } from '../../middleware/authenticate';

export type RestRoute = { method: 'get' | 'post' | 'patch'; path: string; operations: string[] };

const table = new Map<string, RestRoute>();

/** Every REST route with the registered operations it runs (read by the registry test and the docs). */
export const restRoutes = (): RestRoute[] => [...table.values()];

/**
 * Mounts a route that runs registered operations, guarded by their requirement before the body is
 * read (every operation of one route needs the same). The handler only parses, maps and answers.
 */
export function mapRoute(
  router: Router<RequestState>,
  method: RestRoute['method'],
  path: string,
  operations: AnyOperation[],
  handler: Middleware<RequestState>,
): void {
  table.set(`${method} ${path}`, {
    method,
    path: `/api/v1${path}`,
    operations: operations.map((o) => o.name),
  });
  router[method](path, requires(operations[0]!.requirement), handler);
}

/** The key behind the request, acting through the REST door. */
export const restActor = (ctx: AppContext) =>
  keyActor(ctx.state.principal!, {
    door: 'rest',
    requestId: ctx.state.requestId,
    clientIp: ctx.state.clientIp,
  });
