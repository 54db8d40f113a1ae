import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';
import {
  presentedSession,
  roleOf,
  workspaceNamed,
  type LiveSession,
  type SessionOver,
  type SessionSettings,
} from '../../domain/identity';
import type { Actor } from '../../domain/kernel/actor';
import { Data } from '../../domain/kernel/data';
import type { Services } from '../../domain/kernel/operation';
import { roleRefusal, type Role } from '../../domain/kernel/permissions';
import { UUID_PATTERN } from '../../domain/kernel/validate';
import type { AppContext, RequestState } from '../context';
import { rawBody } from '../public/raw-body';
import {
  SESSION_COOKIE,
  SIGNIN_COOKIE,
  clearCookie,
  cookieOf,
  csrfToken,
  sameToken,
  type CsrfSubject,
} from './safety';

/** The largest form or JSON body the console reads (a WebAuthn response is a few kilobytes). */
const MAX_BODY_BYTES = 64 * 1024;

/** What the console knows of one request: who is signed in, the browser's mark, what it posted, where it is. */
export type Visit = {
  session?: LiveSession;
  /** Why the session cookie the request carried signs nobody in (for the audit row of a refusal). */
  over?: SessionOver;
  /** The browser's sign-in mark (`__Host-signin`), when it has one. */
  binding?: string;
  /** A POST's form fields (empty for a GET or a JSON post). */
  form: URLSearchParams;
  /** A JSON POST's body (the passkey ceremonies). */
  json?: Record<string, unknown>;
  /** On a workspace's pages: the workspace and the member's live role in it. */
  member?: { workspaceId: string; name: string; role: Role };
};

const visits = new WeakMap<AppContext, Visit>();

export const visitOf = (ctx: AppContext): Visit => {
  let v = visits.get(ctx);
  if (!v) visits.set(ctx, (v = { form: new URLSearchParams() }));
  return v;
};

/** What the console needs from the process: its services, its public address and its sessions' limits. */
export type ConsoleDeps = {
  services: Services;
  /** PUBLIC_URL: the one origin a POST may come from, and the passkeys' relying party. */
  publicUrl: string;
  session: SessionSettings;
  /** The authorization server whose consent page the console shows, where assistants may connect. */
  authorizationServer?: Provider;
};

export const nowOf = (services: Services) => services.clock?.() ?? new Date();

/** Identity's reads and writes that belong to no workspace (sessions, links, passkeys). */
export const userData = (services: Services) => new Data(services.db.manager, undefined);

/** The CSRF subject of this request: its session once signed in, else the browser's mark. */
function csrfSubject(v: Visit): CsrfSubject | undefined {
  if (v.session) return { session: v.session.id };
  return v.binding ? { signin: v.binding } : undefined;
}

/** The token the request's pages carry (empty where it has neither a session nor a mark yet). */
export const csrfOf = (deps: ConsoleDeps, v: Visit) => {
  const subject = csrfSubject(v);
  return subject ? csrfToken(deps.services.secretsKey, subject) : '';
};

/**
 * Reads the session cookie into a live session (identity touches it: idle time restarts) and the
 * browser's mark; a cookie whose session is over is cleared. Every request of the console passes here.
 */
export const loadVisit =
  (deps: ConsoleDeps): Middleware<RequestState> =>
  async (ctx, next) => {
    const v = visitOf(ctx);
    v.binding = cookieOf(ctx, SIGNIN_COOKIE);
    const token = cookieOf(ctx, SESSION_COOKIE);
    if (token) {
      const presented = await presentedSession(
        userData(deps.services),
        token,
        deps.session,
        nowOf(deps.services),
      );
      if ('session' in presented) {
        v.session = presented.session;
        ctx.state.auditUserId = presented.session.userId;
      } else {
        v.over = presented.over;
        clearCookie(ctx, SESSION_COOKIE);
      }
    }
    await next();
  };

/** A refusal: the caller is told "Not allowed" (or "not found"); the audit row keeps why. */
export class ConsoleRefusal extends Error {
  constructor(
    readonly kind: 'not_allowed' | 'not_found' | 'link_not_valid',
    readonly reason: string,
  ) {
    super(reason);
  }
}

const isJson = (ctx: AppContext) => ctx.is('application/json') === 'application/json';

/**
 * Every POST: it comes from PUBLIC_URL's origin (a browser always says where a POST comes from), and
 * carries the CSRF token of its session or mark, in `_csrf` or `X-CSRF-Token`. The body is read here,
 * once, so the token can be checked before anything runs.
 */
export const checkPost =
  (deps: ConsoleDeps): Middleware<RequestState> =>
  async (ctx, next) => {
    if (ctx.method !== 'POST') {
      await next();
      return;
    }
    const origin = new URL(deps.publicUrl).origin;
    const v = visitOf(ctx);
    const given = ctx.get('Origin');
    if (given !== origin)
      throw new ConsoleRefusal(
        'not_allowed',
        given ? `POST from another origin: ${given.slice(0, 200)}` : 'POST without an Origin',
      );
    const body = (await rawBody(ctx, MAX_BODY_BYTES)).toString('utf8');
    if (isJson(ctx)) {
      try {
        const parsed: unknown = JSON.parse(body || '{}');
        v.json =
          parsed && typeof parsed === 'object' && !Array.isArray(parsed)
            ? (parsed as Record<string, unknown>)
            : {};
      } catch {
        throw new ConsoleRefusal('not_allowed', 'a JSON body that does not parse');
      }
    } else v.form = new URLSearchParams(body);
    const subject = csrfSubject(v);
    const token = ctx.get('X-CSRF-Token') || v.form.get('_csrf') || undefined;
    const refusal = !subject
      ? 'POST without a session or a sign-in mark'
      : !token
        ? 'POST without a CSRF token'
        : !sameToken(token, csrfToken(deps.services.secretsKey, subject))
          ? 'POST with a wrong CSRF token'
          : undefined;
    // A form sent from a page whose session has since ended carries that session's token.
    if (refusal) throw new ConsoleRefusal('not_allowed', v.over ? sessionOver(v.over) : refusal);
    await next();
  };

/** A page for signed-in people: without a session a GET goes to the sign-in page, anything else is refused. */
export const signedIn: Middleware<RequestState> = async (ctx, next) => {
  const v = visitOf(ctx);
  if (v.session) {
    await next();
    return;
  }
  const reason = v.over ? sessionOver(v.over) : 'not signed in';
  if (ctx.method !== 'GET') throw new ConsoleRefusal('not_allowed', reason);
  // A session that ended under its browser (a removal, a revocation, a timeout) is a refusal on record;
  // a browser that was never signed in is only shown the way.
  if (v.over) {
    ctx.state.auditOutcome = 'refused';
    ctx.state.auditReason = reason;
  }
  ctx.status = 303;
  ctx.redirect('/app/sign-in');
};

const OVER: Record<SessionOver, string> = {
  unknown: 'no session has this cookie',
  expired: 'it expired',
  idle: 'it was idle too long',
  signed_out: 'it signed out',
  revoked: 'it was revoked',
  removed: 'its member was removed',
  demoted: 'its member was demoted',
};

/** A refusal's reason for a session cookie that signs nobody in. */
const sessionOver = (over: SessionOver) => `session cookie of no live session: ${OVER[over]}`;

/**
 * A workspace's page: the signed-in user's live membership, read on every request. A workspace they
 * are not a member of answers as one that does not exist; a role below the page's is refused.
 */
export const memberOf =
  (deps: ConsoleDeps, minRole: Role): Middleware<RequestState> =>
  async (ctx, next) => {
    const v = visitOf(ctx);
    const session = v.session;
    if (!session) {
      await signedIn(ctx, next);
      return;
    }
    const workspaceId = String((ctx as AppContext & { params: Record<string, string> }).params.workspaceId);
    if (!UUID_PATTERN.test(workspaceId)) throw new ConsoleRefusal('not_found', 'no such workspace');
    const data = new Data(deps.services.db.manager, workspaceId.toLowerCase());
    const role = await roleOf(data, session.userId);
    if (!role) throw new ConsoleRefusal('not_found', `not a member of workspace ${workspaceId}`);
    ctx.state.auditWorkspaceId = data.workspaceId;
    const workspace = await workspaceNamed(data, data.workspaceId!);
    v.member = { workspaceId: data.workspaceId!, name: workspace?.name ?? 'Workspace', role };
    const refusal = roleRefusal(role, minRole);
    if (refusal) throw new ConsoleRefusal('not_allowed', refusal);
    await next();
  };

/** The signed-in member as the runner knows them: their own authority, their live role, this door. */
export function memberActor(ctx: AppContext): Actor {
  const v = visitOf(ctx);
  if (!v.session || !v.member) throw new Error('memberActor outside a workspace page');
  return {
    type: 'member',
    userId: v.session.userId,
    workspaceId: v.member.workspaceId,
    role: v.member.role,
    ctx: {
      door: 'console',
      requestId: ctx.state.requestId,
      clientIp: ctx.state.clientIp,
      actorUserId: v.session.userId,
    },
  };
}
