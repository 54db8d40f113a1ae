import { DomainError } from '../../domain/kernel/errors';
import type { JsonSchema } from '../../domain/kernel/json-schema';

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

/** The types a parameter may take: its `type`, or its anyOf branches' (a nullable one is written so). */
const typesOf = (schema: JsonSchema | undefined): unknown[] =>
  schema === undefined
    ? []
    : [
        schema.type,
        ...(Array.isArray(schema.anyOf) ? schema.anyOf.map((b: JsonSchema) => b.type) : []),
      ].flat();

/**
 * A query string read into the JSON types the operation's input names: `true`/`false` for a boolean,
 * digits for an integer. Anything else stays text, so the operation's own validation refuses it and
 * names the parameter. Parsing text belongs to this door; the operation takes JSON.
 */
export function typedQuery(query: Record<string, string>, input: JsonSchema): Record<string, unknown> {
  const properties = (input.properties ?? {}) as Record<string, JsonSchema>;
  return Object.fromEntries(
    Object.entries(query).map(([name, text]): [string, unknown] => {
      const types = typesOf(properties[name]);
      if (types.includes('boolean') && (text === 'true' || text === 'false')) return [name, text === 'true'];
      if ((types.includes('integer') || types.includes('number')) && /^-?\d{1,15}$/.test(text))
        return [name, Number(text)];
      return [name, text];
    }),
  );
}
