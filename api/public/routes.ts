import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { DataSource } from 'typeorm';
import type { PublicFamily, PublicRoute, Services } from '../../domain/kernel/operation';
import { allOperations } from '../../domain/registry';
import type { RequestState } from '../context';
import { routeKey, type PublicFamilyDoor } from './family';
import { hooksFamily, type PublicDoorOptions } from './hooks';
import type { PublicLimits } from './limits';
import { quotePageFamily } from './quotes';
import { unsubscribeFamily } from './unsubscribe';

/** A declared route without an API key, with the audit action its requests are recorded under. */
export type DeclaredPublicRoute = PublicRoute & { action: string };

/** Every route without an API key, as the registered operations declare them (a route shared by several once). */
function publicRoutes(): DeclaredPublicRoute[] {
  const byKey = new Map<string, DeclaredPublicRoute>();
  for (const op of allOperations())
    for (const route of op.doors.public ?? []) {
      const declared = { ...route, action: route.action ?? op.name };
      const known = byKey.get(routeKey(route));
      if (known && (known.action !== declared.action || known.family !== declared.family))
        throw new Error(`${routeKey(route)} is declared twice, differently (${op.name})`);
      byKey.set(routeKey(route), declared);
    }
  return [...byKey.values()];
}

const auditedAs =
  (action: string): Middleware<RequestState> =>
  async (ctx, next) => {
    ctx.state.auditDoor = 'public';
    ctx.state.auditAction = action;
    await next();
  };

/**
 * The doors without an API key: the unsubscribe links people click, a quote's page, and the webhooks
 * channel providers call. Each route is one an operation declares (its path, family and audit action);
 * its family says how it is limited and answered. Each proves itself another way (an HMAC token, the
 * provider's signature, the workspace's inbound-email secret), runs a registered operation as the
 * service itself, and is audited under the door `public` like every other request.
 */
export function publicRouter(
  services: Services & { db: DataSource },
  limits: PublicLimits,
  opts: PublicDoorOptions,
) {
  const families: Record<PublicFamily, PublicFamilyDoor> = {
    unsubscribe: unsubscribeFamily(services, limits),
    quote_page: quotePageFamily(services, limits),
    hooks: hooksFamily(services, limits, opts),
  };
  const router = new Router<RequestState>();
  // Guards first: a family's limit counts every request under its prefix, matched or not.
  for (const family of Object.values(families)) router.use(family.prefix, ...family.guard);
  const routes = publicRoutes();
  for (const route of routes) {
    const family = families[route.family];
    const handler = family.handlers[routeKey(route)];
    if (!handler || !route.path.startsWith(`${family.prefix}/`))
      throw new Error(`the ${route.family} family does not answer ${routeKey(route)}`);
    router[route.method](route.path, auditedAs(route.action), handler);
  }
  const declared = new Set(routes.map(routeKey));
  for (const [name, family] of Object.entries(families)) {
    const undeclared = Object.keys(family.handlers).filter((key) => !declared.has(key));
    if (undeclared.length > 0)
      throw new Error(`the ${name} family answers undeclared ${undeclared.join(', ')}`);
    if (family.unmatched) router.all(`${family.prefix}/*rest`, family.unmatched);
  }
  return router;
}
