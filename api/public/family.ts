import type { RouterMiddleware } from '@koa/router';
import type { Middleware } from 'koa';
import type { AnyOperation, PublicRoute } from '../../domain/kernel/operation';
import type { RequestState } from '../context';

/**
 * How one family of routes without an API key answers: a guard on its prefix (its rate limit), a
 * handler for each route its operations declare (keyed by `routeKey`), and the answer for a path under
 * the prefix that matches nothing.
 */
export type PublicFamilyDoor = {
  prefix: string;
  guard: Middleware<RequestState>[];
  handlers: Record<string, RouterMiddleware<RequestState>>;
  unmatched?: RouterMiddleware<RequestState>;
};

/** `post /quotes/:token/accept`: a declared route, as a family's handlers are keyed. */
export const routeKey = (route: Pick<PublicRoute, 'method' | 'path'>) => `${route.method} ${route.path}`;

/** The key of the route by which `op` is reached with `method`, as its declaration says. */
export function declaredRoute(op: AnyOperation, method: PublicRoute['method']): string {
  const route = op.doors.public?.find((r) => r.method === method);
  if (!route) throw new Error(`${op.name} declares no public ${method} route`);
  return routeKey(route);
}
