import type { DomainError, ErrorCode } from '../../domain/kernel/errors';
import { BodyParseError, toHttp } from '../errors';

/** JSON-RPC 2.0 error codes, and the MCP ones this door answers. */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Implementation-defined: the HTTP layer refused the request (key, rate, size, media type, Origin). */
  refused: -32000,
  missingCapability: -32021,
} as const;

export type RpcError = { code: number; message: string; data?: Record<string, unknown> };
export type RpcId = string | number | null;

/** A JSON-RPC error response body. */
export const rpcError = (id: RpcId, error: RpcError) => ({ jsonrpc: '2.0' as const, id, error });

/**
 * The only place a refusal made before the JSON-RPC message is handled (the key, the rate limit, the
 * body) becomes this door's answer: the HTTP status REST would give, and a JSON-RPC error whose `data`
 * names the refusal the way REST's error body does. The switch fails to compile if a code is missed.
 */
export function toJsonRpc(err: DomainError, requestId: string): { status: number; error: RpcError } {
  const http = toHttp(err, requestId);
  const { code: name, message, ...rest } = http.body.error as { code: string; message: string };
  const data = { code: name, ...rest };
  const code: ErrorCode = err.code;
  switch (code) {
    case 'invalid_request':
      if (err instanceof BodyParseError)
        return { status: 400, error: { code: RPC.parseError, message, data } };
      if (err.details.field === 'content-type')
        return { status: 415, error: { code: RPC.refused, message, data } };
      return { status: http.status, error: { code: RPC.invalidRequest, message, data } };
    case 'server_error':
      return {
        status: http.status,
        error: {
          code: RPC.internalError,
          message: `The service failed to handle this request (request id ${requestId}).`,
          data,
        },
      };
    case 'unauthorized':
    case 'forbidden':
    case 'not_found':
    case 'conflict':
    case 'rate_limited':
    case 'needs_confirmation':
    case 'suppressed':
    case 'payload_too_large':
    case 'unavailable':
      return { status: http.status, error: { code: RPC.refused, message, data } };
    default: {
      const unreachable: never = code;
      return unreachable;
    }
  }
}
