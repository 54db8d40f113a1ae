import type { Middleware } from 'koa';
import { DomainError } from '../../domain/kernel/errors';
import type { RequestState } from '../context';
import { BodyParseError } from '../errors';

const MAX_BODY_BYTES = 1024 * 1024;

const tooLarge = () =>
  new DomainError('payload_too_large', 'The request body is larger than 1 MB.', { field: 'body' });

/** Reads a JSON body (and nothing else), refusing bodies over 1 MB without buffering them. */
export const jsonBody = (): Middleware<RequestState> => async (ctx, next) => {
  if (!['POST', 'PUT', 'PATCH'].includes(ctx.method)) {
    await next();
    return;
  }
  const declared = Number(ctx.get('Content-Length') || 0);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const type = ctx.get('Content-Type');
  if (!/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(type.trim())) {
    throw new DomainError('invalid_request', 'Content-Type must be application/json.', {
      field: 'content-type',
    });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof DomainError) throw err;
    // The client went away mid-body: its fault, not ours, and nothing was done.
    throw new DomainError('invalid_request', 'The request body ended before it was complete.', {
      field: 'body',
    });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new BodyParseError('The request body is not valid UTF-8.');
  }
  try {
    ctx.state.body = JSON.parse(text);
  } catch {
    throw new BodyParseError('The request body is not valid JSON.');
  }
  // PostgreSQL text cannot hold NUL; refuse it here, naming the field, rather than fail on write.
  const nul = findNul(ctx.state.body, '');
  if (nul !== undefined) {
    throw new DomainError('invalid_request', 'Strings must not contain NUL characters.', {
      field: nul || 'body',
    });
  }
  await next();
};

/** The path of the first string (or key) holding U+0000, if any. Iterative: bodies may nest deeply. */
function findNul(root: unknown, rootPath: string): string | undefined {
  const stack: [unknown, string][] = [[root, rootPath]];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return path;
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (k.includes('\u0000')) return path || 'body';
        stack.push([v, path ? `${path}.${k}` : k]);
      }
    }
  }
  return undefined;
}
