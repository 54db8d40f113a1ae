import type { PublicFamily } from './public/limits';
import type { ParameterizedContext } from 'koa';
import type { RateCount } from '../domain/identity';
import type { AuditDoor, AuditOutcome } from '../domain/kernel/audit';
import type { ErrorCode } from '../domain/kernel/errors';
import type { DatabaseErrorKind } from '../infra/prometheus';
import type { Principal } from '../domain/kernel/permissions';
import type { Logger } from '../infra/logger';

/** What the middleware chain learns about a request, read by the audit middleware at the end. */
export type RequestState = {
  requestId: string;
  /** The API's logger with this request's `request_id` on every line. */
  log: Logger;
  clientIp?: string;
  principal?: Principal;
  /** Counted with the key lookup; the rate-limit middleware decides with it. */
  rate?: RateCount;
  /** Set when a key was presented but refused, so the audit row still names it. */
  presentedKey?: { keyPrefix?: string; keyId?: string; workspaceId?: string };
  /** The real reason for a refusal or failure; audit only. */
  auditReason?: string;
  /** The request deadline passed and the caller got 503 while the work went on. */
  deadlineExpired?: boolean;
  /** Set by a door other than REST (the assistant endpoint), with what was called (a tool name). */
  auditDoor?: AuditDoor;
  /** The workspace a request without a key acted in (a provider webhook), for its audit row. */
  auditWorkspaceId?: string;
  /** The person a request without a key came from (a member signed in to the console), for its audit row. */
  auditUserId?: string;
  auditAction?: string;
  /** The OAuth client a request to the authorization server came from, for its audit row. */
  auditClientId?: string;
  /** A refusal or a parked call inside a 200 answer (an MCP tool error). */
  auditOutcome?: AuditOutcome;
  body?: unknown;
  /** The kind of refusal answered (an error code, or `protocol`: an MCP request refused as malformed); metrics only. */
  refusal?: ErrorCode | 'protocol';
  /** Which limit answered 429: the key's, the address's refused-traffic brake, or the quote page's; metrics only. */
  rateLimited?: 'key' | 'address' | PublicFamily | 'hooks_refused';
  /** A database error met while serving; metrics only. */
  dbError?: DatabaseErrorKind;
  /**
   * The parameters a 401 on the assistant endpoint names after `Bearer` (its resource metadata and
   * scopes), where assistants may connect over OAuth.
   */
  bearerChallenge?: string;
  /** The JSON-RPC id of an assistant-endpoint request, once its body was read: every error answer carries it. */
  rpcId?: string | number | null;
};

export type AppContext = ParameterizedContext<RequestState>;

/** Paths whose next segment is a secret (a quote page's token, an unsubscribe link's): their prefix. */
const TOKEN_PATHS = ['/quotes/', '/u/'];

/**
 * A path a caller typed, as a log line, audit row or error may carry it: under a token path only its
 * family (`/quotes/*`, `/u/*`), since the token is a key to the page; any other path as it is.
 */
export const maskedPath = (path: string): string => {
  const prefix = TOKEN_PATHS.find((p) => path.startsWith(p));
  return prefix ? `${prefix}*` : path;
};

/**
 * The path as logs may show it: the matched route's pattern (`/quotes/:token`), so a token in a URL
 * never reaches a log line; when no route matched, the path with any token masked.
 */
export const loggedPath = (ctx: AppContext): string =>
  (ctx as { _matchedRoute?: string })._matchedRoute ?? maskedPath(ctx.path);
