import type { Middleware } from 'koa';
import type * as yup from 'yup';
import type { RelyingParty } from '../../domain/identity';
import { DomainError } from '../../domain/kernel/errors';
import type { Operation } from '../../domain/kernel/operation';
import { runOperation } from '../../domain/kernel/runner';
import { loggedPath, type AppContext, type RequestState } from '../context';
import { databaseUnavailable } from '../errors';
import { sendPage, setPageHeaders } from '../pages/security';
import type { ConsoleAssets } from './assets';
import { page, refusalPage, type FieldErrors, type Frame, type WorkspacePage } from './layout';
import { CONSOLE_CSP, CONSOLE_REFERRER } from './safety';
import { ConsoleRefusal, csrfOf, memberActor, visitOf, type ConsoleDeps } from './visit';

/** A console page's answer, under the console's policies. */
const answer = (ctx: AppContext, status: number, html: string) =>
  sendPage(ctx, status, html, CONSOLE_CSP, CONSOLE_REFERRER);

/** What every route of the console is built with: its dependencies, its files, and the helpers below. */
export type ConsoleKit = ReturnType<typeof consoleKit>;

export function consoleKit(deps: ConsoleDeps, assets: ConsoleAssets) {
  const origin = new URL(deps.publicUrl);
  const rp: RelyingParty = { id: origin.hostname, name: 'Lead console', origin: origin.origin };
  /** The frame of this request's page: who is signed in, their token, and the workspace they are in. */
  const frame = (ctx: AppContext, extra: Partial<Frame> & { current?: WorkspacePage } = {}): Frame => {
    const v = visitOf(ctx);
    const { current, ...rest } = extra;
    return {
      assets,
      csrf: csrfOf(deps, v),
      ...(v.session && { email: v.session.email }),
      ...(v.member && {
        workspace: {
          id: v.member.workspaceId,
          name: v.member.name,
          role: v.member.role,
          current: current ?? 'overview',
        },
      }),
      ...rest,
    };
  };
  return {
    deps,
    assets,
    /** WebAuthn's relying party: PUBLIC_URL's host name (a domain, never an address) and origin. */
    rp,
    frame,
    /** Answers a page inside the console's frame. */
    render: (
      ctx: AppContext,
      status: number,
      title: string,
      body: string,
      extra: Parameters<typeof frame>[1] & { narrow?: boolean } = {},
    ) => {
      const { narrow, ...rest } = extra;
      answer(ctx, status, page(frame(ctx, rest), title, body, { narrow }));
    },
    /** Runs a registered operation as the signed-in member of this workspace page. */
    run: <S extends yup.AnyObjectSchema, O>(
      ctx: AppContext,
      op: Operation<S, O>,
      input: Record<string, unknown>,
    ) => runOperation(deps.services, op, memberActor(ctx), input),
    /** The workspace page's own path (`/app/w/<id>` and what follows). */
    base: (ctx: AppContext) => `/app/w/${visitOf(ctx).member!.workspaceId}`,
  };
}

/**
 * An operation's refusal of what a form said, by field (its first path segment names the form's
 * input); a conflict is the form's as a whole. Anything else is no form's business and is thrown on.
 */
export function fieldErrors(err: unknown): FieldErrors {
  if (err instanceof DomainError && err.code === 'invalid_request') {
    const field = typeof err.details.field === 'string' ? err.details.field.split(/[.[]/)[0]! : '_form';
    return { [field || '_form']: err.message };
  }
  if (err instanceof DomainError && err.code === 'conflict') return { _form: err.message };
  throw err;
}

const wantsJson = (ctx: AppContext) =>
  ctx.is('application/json') === 'application/json' || ctx.path.endsWith('/options');

const STATUS = { not_allowed: 403, not_found: 404, link_not_valid: 404 } as const;

/**
 * The console's frame for every answer: audited as door `console`, the pages' headers under the
 * console's policy (so an asset, a redirect and a refusal are `no-store` too), and every failure
 * answered as a page (or, for the passkey ceremonies' JSON, `{ error }`) that says only "Not allowed"
 * or "not found"; the audit row keeps the real reason.
 */
export const consoleFrame =
  (kit: ConsoleKit): Middleware<RequestState> =>
  async (ctx, next) => {
    ctx.state.auditDoor = 'console';
    setPageHeaders(ctx, CONSOLE_CSP, CONSOLE_REFERRER);
    try {
      await next();
    } catch (err) {
      const refusal =
        err instanceof ConsoleRefusal
          ? err
          : err instanceof DomainError && err.code === 'forbidden'
            ? new ConsoleRefusal('not_allowed', err.auditReason ?? err.message)
            : err instanceof DomainError && err.code === 'not_found'
              ? new ConsoleRefusal('not_found', err.message)
              : err instanceof DomainError && err.code !== 'server_error'
                ? new ConsoleRefusal('not_allowed', err.auditReason ?? err.message)
                : undefined;
      if (refusal) {
        ctx.state.auditReason = refusal.reason.slice(0, 500);
        ctx.state.auditOutcome = 'refused';
        const status =
          err instanceof DomainError && err.code === 'payload_too_large' ? 413 : STATUS[refusal.kind];
        if (wantsJson(ctx)) {
          ctx.status = status;
          ctx.body = { error: refusal.kind === 'not_found' ? 'Not found' : 'Not allowed' };
        } else answer(ctx, status, refusalPage(kit.frame(ctx), refusal.kind));
        return;
      }
      const unavailable = databaseUnavailable(err);
      ctx.state.auditReason = (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(
        0,
        500,
      );
      ctx.state.log.error('console page failed', {
        path: loggedPath(ctx),
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
      if (unavailable) ctx.set('Retry-After', '30');
      const status = unavailable ? 503 : 500;
      if (wantsJson(ctx)) {
        ctx.status = status;
        ctx.body = { error: 'Something went wrong' };
      } else answer(ctx, status, refusalPage({ assets: kit.assets, csrf: '' }, 'failed'));
    }
  };
