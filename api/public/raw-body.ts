import { DomainError } from '../../domain/kernel/errors';
import type { AppContext } from '../context';

/** Reads a body as bytes, up to `limit`, refusing a larger one without buffering it. */
export async function rawBody(ctx: AppContext, limit: number): Promise<Buffer> {
  const tooLarge = () =>
    new DomainError('payload_too_large', `The request body is larger than ${limit} bytes.`, {
      field: 'body',
    });
  if (Number(ctx.get('Content-Length') || 0) > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw new DomainError('invalid_request', 'The request body ended before it was complete.', {
      field: 'body',
    });
  }
  return Buffer.concat(chunks);
}
