import type { ParameterizedContext } from 'koa';
import { DomainError } from '../domain/kernel/errors';
import type { RequestState } from './context';
import { toHttp } from './errors';
import { rpcError, toJsonRpc } from './mcp/errors';

/**
 * Answers a refusal or a fault in the shape of the request's door: REST's error body, or on the
 * assistant endpoint a JSON-RPC error (with the request's id once it was read). The headers that go
 * with a status go with it on both.
 */
export function respondWith(ctx: ParameterizedContext<RequestState>, err: DomainError): void {
  if (err.code !== 'server_error') ctx.state.refusal = err.code;
  if (ctx.state.auditDoor === 'mcp') {
    const { status, error } = toJsonRpc(err, ctx.state.requestId);
    ctx.status = status;
    ctx.body = rpcError(ctx.state.rpcId ?? null, error);
  } else {
    const answer = toHttp(err, ctx.state.requestId);
    ctx.status = answer.status;
    ctx.body = answer.body;
  }
  const retryAfter = err.details.retry_after;
  if ((ctx.status === 429 || ctx.status === 503) && typeof retryAfter === 'number')
    ctx.set('Retry-After', String(retryAfter));
  // RFC 6750: a 401 names the scheme, so a client (an MCP client too) knows to send a bearer key; on
  // the assistant endpoint it also names the resource's metadata (RFC 9728), where OAuth starts, and
  // says `invalid_token` when a bearer was presented.
  if (ctx.status === 401) {
    const challenge = ctx.state.bearerChallenge;
    const presented = /^Bearer\s+\S/i.test(ctx.get('Authorization'));
    ctx.set(
      'WWW-Authenticate',
      challenge ? `Bearer ${presented ? 'error="invalid_token", ' : ''}${challenge}` : 'Bearer',
    );
  }
}

/** A fault whose text must not reach the caller: answered as a bare server error naming the request. */
export const serverFault = () =>
  new DomainError('server_error', 'The service failed to handle this request.');
