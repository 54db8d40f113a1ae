import { QueryFailedError } from 'typeorm';
import { DomainError, type ErrorCode } from '../domain/kernel/errors';
import type { DatabaseErrorKind } from '../infra/prometheus';

/** The body could not be read as JSON at all (or not as UTF-8): REST says invalid_request; JSON-RPC, a parse error. */
export class BodyParseError extends DomainError {
  constructor(message: string) {
    super('invalid_request', message, { field: 'body' });
  }
}

export type WireError = { status: number; body: { error: Record<string, unknown> } };

/**
 * The longest `message`, `field` and `effect` an error body carries, in characters. A refusal can
 * quote what the caller sent (an unknown member's name, up to the 1 MB body): it is not echoed whole.
 */
export const ERROR_TEXT_MAX = { message: 1000, field: 200, effect: 1000 } as const;

const clip = (text: string, max: number) => {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
};

const clipped = (extra: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(extra).map(([k, v]) => [
      k,
      typeof v === 'string' && (k === 'field' || k === 'effect') ? clip(v, ERROR_TEXT_MAX[k]) : v,
    ]),
  );

// One body per refusal kind, whatever check failed: the real reason goes to the audit log only.
const UNAUTHORIZED = 'The API key is missing, invalid, expired, revoked or not allowed from this address.';
const FORBIDDEN = 'This API key is not allowed to do this.';

/** The only place a domain error becomes an HTTP answer; the switch fails to compile if a code is missed. */
export function toHttp(err: DomainError, requestId: string): WireError {
  const wire = (status: number, code: string, message: string, extra: Record<string, unknown> = {}) => ({
    status,
    body: { error: { code, message: clip(message, ERROR_TEXT_MAX.message), ...clipped(extra) } },
  });
  const code: ErrorCode = err.code;
  switch (code) {
    case 'unauthorized':
      return wire(401, code, UNAUTHORIZED);
    case 'forbidden':
      return wire(403, code, FORBIDDEN);
    case 'invalid_request':
      return wire(400, code, err.message, err.details);
    case 'payload_too_large':
      return wire(413, 'invalid_request', err.message, err.details);
    case 'not_found':
    case 'conflict':
    case 'suppressed':
    case 'needs_confirmation':
      return wire(code === 'not_found' ? 404 : 409, code, err.message, err.details);
    case 'rate_limited':
      return wire(429, code, err.message, err.details);
    case 'unavailable':
      return wire(503, code, err.message, { request_id: requestId, ...err.details });
    case 'server_error':
      return wire(500, code, 'The service failed to handle this request.', { request_id: requestId });
    default: {
      const unreachable: never = code;
      return unreachable;
    }
  }
}

// SQLSTATE classes and codes that mean "not now" rather than "wrong": connection exceptions, the server
// shutting down or refusing connections, too many connections, a statement or idle transaction timed out.
const UNAVAILABLE_SQLSTATE = /^(08|57P0[1-3]|53300|57014|25P03)/;
const UNAVAILABLE_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);
// node-postgres's own words for a pool that could not connect, a client-side query timeout, a lost socket.
const UNAVAILABLE_MESSAGE =
  /timeout exceeded when trying to connect|Query read timeout|Connection terminated|terminating connection/i;

/**
 * PostgreSQL could not be reached, or did not answer in time: the caller should retry later (503),
 * not report a fault (500). TypeORM wraps the driver's error in `driverError`.
 */
export function databaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const outer = err as { driverError?: unknown };
  const e = (outer.driverError && typeof outer.driverError === 'object' ? outer.driverError : err) as {
    code?: unknown;
    message?: unknown;
  };
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  return UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SOCKET.has(code) || UNAVAILABLE_MESSAGE.test(message);
}

/** Which database error `err` is, if it is one: unreachable or timed out, or a statement refused. */
export function databaseErrorKind(err: unknown): DatabaseErrorKind | undefined {
  if (databaseUnavailable(err)) return 'unavailable';
  return err instanceof QueryFailedError ? 'failed' : undefined;
}
