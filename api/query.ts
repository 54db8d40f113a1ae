import { DomainError } from '../domain/kernel/errors';

/** Query strings arrive as `string | string[]`; a repeated parameter is refused, naming it. */
export function singleValued(query: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) {
    if (k.includes('\u0000') || (typeof v === 'string' && v.includes('\u0000'))) {
      throw new DomainError('invalid_request', 'Query parameters must not contain NUL characters.', {
        field: k.replaceAll('\u0000', ''),
      });
    }
    if (Array.isArray(v))
      throw new DomainError('invalid_request', `${k} may be given only once`, { field: k });
    if (v !== undefined) out[k] = v;
  }
  return out;
}
