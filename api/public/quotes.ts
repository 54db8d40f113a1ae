import { operatorActor } from '../../domain/kernel/actor';
import { DomainError } from '../../domain/kernel/errors';
import type { AnyOperation, Services } from '../../domain/kernel/operation';
import { runOperation } from '../../domain/kernel/runner';
import { QUOTE_PAGE_PATH, operations as salesOperations } from '../../domain/sales';
import type { AppContext } from '../context';
import { declaredRoute, type PublicFamilyDoor } from './family';
import { quoteNotFoundPage, quotePage, sendPage, tooManyPage, type QuotePageModel } from './quote-page';
import type { PublicLimits } from './limits';
import { rawBody } from './raw-body';

const MAX_FORM_BYTES = 16 * 1024;
/**
 * A quote's public page and its two forms, behind the token in the link (no API key). The audit row
 * names the operation, never the path, so the token is in no log or audit row; an unknown token and
 * one of another workspace get the same "not valid" page.
 */
export function quotePageFamily(services: Services, limits: PublicLimits): PublicFamilyDoor {
  const actor = (ctx: AppContext) =>
    operatorActor({ door: 'public', requestId: ctx.state.requestId, clientIp: ctx.state.clientIp });
  const client = (ctx: AppContext) => ({
    ...(ctx.state.clientIp && { client_ip: ctx.state.clientIp }),
    ...(ctx.get('User-Agent') && { user_agent: ctx.get('User-Agent').slice(0, 2000) }),
  });
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
      page = await run<QuotePageModel>(ctx, salesOperations.viewQuotePage, { record_view: false });
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

  return {
    prefix: QUOTE_PAGE_PATH,
    guard: [limits.perAddress('quote_page', (ctx) => sendPage(ctx, 429, tooManyPage()))],
    handlers: {
      [declaredRoute(salesOperations.viewQuotePage, 'get')]: async (ctx) => {
        try {
          sendPage(
            ctx,
            200,
            quotePage(await run<QuotePageModel>(ctx, salesOperations.viewQuotePage, {}), base(ctx)),
          );
        } catch (err) {
          await refused(ctx, err);
        }
      },
      [declaredRoute(salesOperations.acceptQuotePage, 'post')]: async (ctx) => {
        const form = new URLSearchParams((await rawBody(ctx, MAX_FORM_BYTES)).toString('utf8'));
        const name = (form.get('name') ?? '').trim();
        const consent = ['yes', 'on', 'true'].includes(form.get('consent') ?? '');
        try {
          await run(ctx, salesOperations.acceptQuotePage, {
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
      },
      [declaredRoute(salesOperations.declineQuotePage, 'post')]: async (ctx) => {
        await rawBody(ctx, MAX_FORM_BYTES);
        try {
          await run(ctx, salesOperations.declineQuotePage, {});
          ctx.status = 303;
          ctx.redirect(base(ctx));
        } catch (err) {
          await refused(ctx, err);
        }
      },
    },
    // Any other path under the pages (a mistyped link, a probe): the same page as an unknown token,
    // recorded by its family, never by the path (it may hold a token).
    unmatched: (ctx) => {
      ctx.state.auditDoor = 'public';
      ctx.state.auditAction = `${ctx.method} ${QUOTE_PAGE_PATH}/*`;
      ctx.state.auditReason = 'no such quote page route';
      sendPage(ctx, 404, quoteNotFoundPage());
    },
  };
}
