import Router from '@koa/router';
import type { Middleware } from 'koa';
import { operatorActor } from '../../domain/kernel/actor';
import { DomainError } from '../../domain/kernel/errors';
import type { AnyOperation, Services } from '../../domain/kernel/operation';
import { runOperation } from '../../domain/kernel/runner';
import { QUOTE_PAGE_PATH } from '../../domain/sales/quotes';
import { acceptQuotePage, declineQuotePage, viewQuotePage } from '../../domain/sales/operations/quote-page';
import type { AppContext, RequestState } from '../context';
import { quoteNotFoundPage, quotePage, sendPage, tooManyPage, type QuotePageModel } from './quote-page';
import { bucketOf } from '../middleware/refused-traffic';
import { rawBody } from './raw-body';

const MAX_FORM_BYTES = 16 * 1024;
const WINDOW_MS = 60_000;

/**
 * Requests per client address per minute on the quote pages: enough for a person (open, mistype,
 * sign), too few to try tokens. Counted in this process: behind several API processes each counts
 * its own share, which still bounds a guesser (a token is 256 random bits).
 */
export function perAddressLimit(limit: number): Middleware<RequestState> {
  const windows = new Map<string, { start: number; hits: number }>();
  return async (ctx, next) => {
    const now = Date.now();
    if (windows.size > 10_000)
      for (const [k, w] of windows) if (now - w.start >= WINDOW_MS) windows.delete(k);
    // Grouped as refused traffic is: an IPv6 client holds its whole /64 and could rotate through it.
    const key = bucketOf(ctx.state.clientIp);
    let w = windows.get(key);
    if (!w || now - w.start >= WINDOW_MS) windows.set(key, (w = { start: now, hits: 0 }));
    w.hits++;
    ctx.set(
      'RateLimit',
      `"quote-page";r=${Math.max(0, limit - w.hits)};t=${Math.ceil((w.start + WINDOW_MS - now) / 1000)}`,
    );
    if (w.hits > limit) {
      ctx.state.auditAction = 'quote.page';
      ctx.state.auditDoor = 'public';
      ctx.state.auditReason = 'quote page rate limit';
      ctx.state.rateLimited = 'quote_page';
      ctx.state.refusal = 'rate_limited';
      ctx.set('Retry-After', String(Math.ceil((w.start + WINDOW_MS - now) / 1000)));
      sendPage(ctx, 429, tooManyPage());
      return;
    }
    await next();
  };
}

/**
 * A quote's public page and its two forms, behind the token in the link (no API key). The audit row
 * names the operation, never the path, so the token is in no log or audit row; an unknown token and
 * one of another workspace get the same "not valid" page.
 */
export function quotePageRouter(services: Services, opts: { perMinute: number }) {
  const router = new Router<RequestState>();
  const actor = (ctx: AppContext) =>
    operatorActor({ door: 'public', requestId: ctx.state.requestId, clientIp: ctx.state.clientIp });
  const client = (ctx: AppContext) => ({
    ...(ctx.state.clientIp && { client_ip: ctx.state.clientIp }),
    ...(ctx.get('User-Agent') && { user_agent: ctx.get('User-Agent').slice(0, 2000) }),
  });
  const door =
    (op: AnyOperation): Middleware<RequestState> =>
    async (ctx, next) => {
      ctx.state.auditDoor = 'public';
      ctx.state.auditAction = op.name;
      await next();
    };
  /** The token in the path: typed by the router in each route, read here for the helpers. */
  const tokenOf = (ctx: AppContext) => (ctx as AppContext & { params: { token: string } }).params.token;
  const base = (ctx: AppContext) => `${QUOTE_PAGE_PATH}/${tokenOf(ctx)}`;
  const run = <T>(ctx: AppContext, op: AnyOperation, input: Record<string, unknown>) =>
    runOperation(services, op, actor(ctx), {
      token: tokenOf(ctx),
      ...input,
      ...client(ctx),
    }) as Promise<T>;

  /** A refusal as the page answers it: not found, or the page again with what to fix or why it is closed. */
  const refused = async (ctx: AppContext, err: unknown, form: { name?: string; consent?: boolean } = {}) => {
    if (!(err instanceof DomainError)) throw err;
    if (err.code === 'not_found') {
      ctx.state.auditReason = 'unknown quote page token';
      sendPage(ctx, 404, quoteNotFoundPage());
      return;
    }
    if (err.code !== 'invalid_request' && err.code !== 'conflict') throw err;
    ctx.state.auditReason = err.message;
    let page: QuotePageModel;
    try {
      page = await run<QuotePageModel>(ctx, viewQuotePage, { record_view: false });
    } catch (again) {
      // Bad input with a token that names nothing: the same page as any unknown token.
      if (again instanceof DomainError && again.code === 'not_found') {
        sendPage(ctx, 404, quoteNotFoundPage());
        return;
      }
      throw again;
    }
    sendPage(
      ctx,
      err.code === 'conflict' ? 409 : 422,
      quotePage(page, base(ctx), { ...form, ...(err.code === 'invalid_request' && { error: err.message }) }),
    );
  };

  router.use(QUOTE_PAGE_PATH, perAddressLimit(opts.perMinute));

  router.get(`${QUOTE_PAGE_PATH}/:token`, door(viewQuotePage), async (ctx) => {
    try {
      sendPage(ctx, 200, quotePage(await run<QuotePageModel>(ctx, viewQuotePage, {}), base(ctx)));
    } catch (err) {
      await refused(ctx, err);
    }
  });

  router.post(`${QUOTE_PAGE_PATH}/:token/accept`, door(acceptQuotePage), async (ctx) => {
    const form = new URLSearchParams((await rawBody(ctx, MAX_FORM_BYTES)).toString('utf8'));
    const name = (form.get('name') ?? '').trim();
    const consent = ['yes', 'on', 'true'].includes(form.get('consent') ?? '');
    try {
      await run(ctx, acceptQuotePage, {
        name,
        consent,
        ...(form.get('document_sha256') && { document_sha256: form.get('document_sha256') }),
      });
      // Post/Redirect/Get: a reload shows the signed quote rather than posting again.
      ctx.status = 303;
      ctx.redirect(base(ctx));
    } catch (err) {
      await refused(ctx, err, { name, consent });
    }
  });

  router.post(`${QUOTE_PAGE_PATH}/:token/decline`, door(declineQuotePage), async (ctx) => {
    await rawBody(ctx, MAX_FORM_BYTES);
    try {
      await run(ctx, declineQuotePage, {});
      ctx.status = 303;
      ctx.redirect(base(ctx));
    } catch (err) {
      await refused(ctx, err);
    }
  });

  return router;
}
