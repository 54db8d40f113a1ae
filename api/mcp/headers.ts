import type { AnyOperation } from '../../domain/kernel/operation';
import { mirroredArguments } from './tools';

const SENTINEL = /^=\?base64\?(.*)\?=$/s;
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A header value as sent: plain, or `=?base64?...?=` around UTF-8; undefined when the encoding is broken. */
function decoded(value: string): string | undefined {
  const wrapped = SENTINEL.exec(value);
  if (!wrapped) return value;
  const payload = wrapped[1]!;
  if (!CANONICAL_BASE64.test(payload)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
}

/**
 * SEP-2243: a tool argument declared `x-mcp-header` travels in `Mcp-Param-<Name>` too, so a gateway can
 * route on it without reading the body. The two must agree, or the request is refused (-32020) before
 * the tool runs: a gateway and this server must never act on different values.
 * Returns the reason for a mismatch, or undefined when they agree.
 */
export function mirroredHeaderMismatch(
  op: AnyOperation,
  args: unknown,
  header: (name: string) => string | undefined,
): string | undefined {
  const values = args && typeof args === 'object' ? (args as Record<string, unknown>) : {};
  for (const [argument, name] of Object.entries(mirroredArguments(op))) {
    const body = values[argument];
    if (body === undefined || body === null) continue;
    const sent = header(`mcp-param-${name.toLowerCase()}`);
    if (sent === undefined) return `the Mcp-Param-${name} header is missing (arguments.${argument} is set)`;
    const value = decoded(sent);
    if (value === undefined) return `the Mcp-Param-${name} header carries an invalid Base64 value`;
    if (value !== (typeof body === 'string' ? body : JSON.stringify(body)))
      return `the Mcp-Param-${name} header does not match arguments.${argument}`;
  }
  return undefined;
}
