import type { Middleware } from 'koa';
import {
  UNSUBSCRIBE_PATH,
  unsubscribeLinks,
  operations as conversationsOperations,
} from '../../domain/conversations';
import { operatorActor } from '../../domain/kernel/actor';
import { DomainError } from '../../domain/kernel/errors';
import type { Services } from '../../domain/kernel/operation';
import { runOperation } from '../../domain/kernel/runner';
import { loggedPath, type AppContext, type RequestState } from '../context';
import { databaseUnavailable } from '../errors';
import { declaredRoute, type PublicFamilyDoor } from './family';
import { pagePolicy, sendPage } from '../pages/security';
import type { PublicLimits } from './limits';
import { confirmPage, donePage, notFoundPage, nothingToDoPage, tooManyPage, unavailablePage } from './pages';
import { rawBody } from './raw-body';

const MAX_FORM_BYTES = 64 * 1024;

/** The unsubscribe page's policy: inline styles, its own form, nothing else. */
const UNSUBSCRIBE_CSP = pagePolicy(["style-src 'unsafe-inline'"]);

/** An unsubscribe page's answer, with the pages' shared headers, under its own policy. */
const html = (ctx: AppContext, status: number, body: string) => sendPage(ctx, status, body, UNSUBSCRIBE_CSP);

/**
 * Every answer under the unsubscribe links is a page, a failure too (a person clicked a link in an
 * email; JSON would mean nothing to them): the error is logged and audited as any other.
 */
const pagesOnly: Middleware<RequestState> = async (ctx, next) => {
  try {
    await next();
  } catch (err) {
    if (err instanceof DomainError && err.code !== 'server_error') {
      // The caller's mistake (a token that does not parse, a body too large): the not-valid page.
      ctx.state.auditReason = err.auditReason ?? err.message;
      html(ctx, 404, notFoundPage());
      return;
    }
    const unavailable = databaseUnavailable(err);
    ctx.state.auditReason = (err instanceof Error ? err.message : String(err)).slice(0, 500);
    ctx.state.log.error('unsubscribe page failed', { path: loggedPath(ctx), error: ctx.state.auditReason });
    if (unavailable) ctx.set('Retry-After', '30');
    html(ctx, unavailable ? 503 : 500, unavailablePage());
  }
};

/** The unsubscribe links people click in an email: a page that asks, and the form (or mail client) that does it. */
export function unsubscribeFamily(services: Services, limits: PublicLimits): PublicFamilyDoor {
  const links = unsubscribeLinks(services.secretsKey);
  const actor = (ctx: AppContext) =>
    operatorActor({ door: 'public', requestId: ctx.state.requestId, clientIp: ctx.state.clientIp });
  return {
    prefix: UNSUBSCRIBE_PATH,
    guard: [pagesOnly, limits.perAddress('unsubscribe', (ctx) => html(ctx, 429, tooManyPage()))],
    handlers: {
      [declaredRoute(conversationsOperations.unsubscribeByLink, 'get')]: (ctx) => {
        const token = ctx.params.token!;
        if (links.read(token)) html(ctx, 200, confirmPage(ctx.path));
        else {
          ctx.state.auditReason = 'unknown or forged unsubscribe token';
          html(ctx, 404, notFoundPage());
        }
      },
      // Idempotent: a second click finds nothing left to do.
      [declaredRoute(conversationsOperations.unsubscribeByLink, 'post')]: async (ctx) => {
        await rawBody(ctx, MAX_FORM_BYTES);
        try {
          const done = await runOperation(services, conversationsOperations.unsubscribeByLink, actor(ctx), {
            token: ctx.params.token!,
          });
          html(ctx, 200, done.unsubscribed ? donePage() : nothingToDoPage());
        } catch (err) {
          if (!(err instanceof DomainError) || err.code !== 'not_found') throw err;
          ctx.state.auditReason = 'unknown or forged unsubscribe token';
          html(ctx, 404, notFoundPage());
        }
      },
    },
    // Any other path or method under the links: the not-valid page, recorded by the family only.
    unmatched: (ctx) => {
      ctx.state.auditDoor = 'public';
      ctx.state.auditAction = `${ctx.method} ${UNSUBSCRIBE_PATH}/*`;
      ctx.state.auditReason = 'no such unsubscribe route';
      html(ctx, 404, notFoundPage());
    },
  };
}
