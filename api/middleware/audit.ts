import type { Middleware } from 'koa';
import type { AuditWriter } from '../audit-writer';
import type { AuditOutcome } from '../../domain/kernel/audit';
import { maskedPath, type RequestState } from '../context';
import { DATABASE_UNAVAILABLE, unavailable } from '../unavailable';
import { databaseErrorKind, databaseUnavailable } from '../errors';
import { respondWith, serverFault } from '../respond';

/**
 * An unmatched path is the caller's text (and a refused caller may be anyone): a token path masked to
 * its family, at most 100 characters, anything outside a URL path's plain characters replaced, so a
 * row stays small, inert, and holds no secret.
 */
const boundedPath = (path: string) =>
  maskedPath(path)
    .slice(0, 100)
    .replace(/[^A-Za-z0-9/_.~*-]/g, '?');

const outcomeOf = (status: number): AuditOutcome =>
  status >= 500 ? 'failed' : status >= 400 ? 'refused' : 'allowed';

/** Writes one audit row per request, allowed or refused, before the response leaves. */
export const audit =
  (audits: AuditWriter): Middleware<RequestState> =>
  async (ctx, next) => {
    if (audits.full()) {
      // Rows are not being written (a slow or stalled database): refuse before doing any work, and
      // before queueing a row that would only make the backlog longer.
      ctx.state.log.warn('audit queue full; request shed with 503');
      unavailable(ctx, 'The service is overloaded; retry later.');
      return;
    }
    try {
      await next();
    } finally {
      const s = ctx.state;
      const route = (ctx as { _matchedRoute?: string })._matchedRoute;
      try {
        await audits.write({
          door: s.auditDoor ?? 'rest',
          action: s.auditAction ?? `${ctx.method} ${route ?? boundedPath(ctx.path)}`,
          outcome: s.auditOutcome ?? outcomeOf(ctx.status),
          status: ctx.status,
          reason: s.deadlineExpired
            ? 'answered 503 at the request deadline; the work ended after it'
            : ctx.status >= 400 || s.auditOutcome === 'refused'
              ? (s.auditReason ?? null)
              : null,
          workspaceId: s.principal?.workspaceId ?? s.presentedKey?.workspaceId ?? s.auditWorkspaceId,
          keyId: s.principal?.keyId ?? s.presentedKey?.keyId,
          keyPrefix: s.principal?.keyPrefix ?? s.presentedKey?.keyPrefix,
          actorUserId: s.principal?.userId ?? s.auditUserId,
          clientId: s.principal?.client?.id ?? s.auditClientId,
          requestId: s.requestId,
          clientIp: s.clientIp,
        });
      } catch (err) {
        // An unauditable request must not succeed silently: 503 when the database is out (retry later;
        // an intake that committed replays under its Idempotency-Key), 500 for anything else.
        s.log.error('audit write failed', { error: String(err) });
        s.dbError = databaseErrorKind(err);
        if (databaseUnavailable(err)) unavailable(ctx, DATABASE_UNAVAILABLE);
        else respondWith(ctx, serverFault());
      }
    }
  };
