import type * as yup from 'yup';
import { toJsonSchema, withIntegerFormat, type JsonSchema } from './json-schema';

/**
 * Builders for output schemas (JSON Schema 2020-12). Objects are closed: an answer carries exactly what
 * its schema names, so the tests that check answers against it also catch a field added by accident.
 * A `title` names a shape; the OpenAPI document lists titled shapes as components.
 */
export const string = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
export const integer = (extra: JsonSchema = {}): JsonSchema =>
  withIntegerFormat({ type: 'integer', ...extra });
export const number = (extra: JsonSchema = {}): JsonSchema => ({ type: 'number', ...extra });
export const boolean: JsonSchema = { type: 'boolean' };
export const uuid = string({ format: 'uuid', maxLength: 36 });
/** As `Date.prototype.toISOString` writes it: 24 characters, 27 for a year past 9999. */
export const dateTime = string({ format: 'date-time', maxLength: 27 });
export const oneOf = (values: readonly (string | number)[]): JsonSchema => ({ enum: [...values] });
/**
 * The value or null, as two branches rather than a type union (`["string", "null"]`), which clients that
 * read one `type` per schema refuse (json-schema.ts). The description stays on the field; a title stays
 * on the shape it names.
 */
export const nullable = (s: JsonSchema): JsonSchema => {
  const { description, ...value } = s;
  return { ...(description === undefined ? {} : { description }), anyOf: [value, { type: 'null' }] };
};
/**
 * An object whose members the service does not choose (a JSON Schema it publishes, the details an audit
 * row carries): its type is known, its members are the record's own. Say which in the description.
 */
export const openObject = (description: string): JsonSchema => ({ type: 'object', description });

export const object = (
  properties: Record<string, JsonSchema>,
  opts: { title?: string; optional?: string[] } = {},
): JsonSchema => ({
  ...(opts.title ? { title: opts.title } : {}),
  type: 'object',
  properties,
  required: Object.keys(properties).filter((k) => !opts.optional?.includes(k)),
  additionalProperties: false,
});

export const arrayOf = (items: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({
  type: 'array',
  items,
  ...extra,
});

/**
 * An output field that shows what an input field accepted, stored as it came: its shape is the input's own
 * yup schema, so it is declared once. `complete` when the service fills every member in before storing it
 * (defaults merged), so every member is there. Defaults are the input's business and are left out.
 */
export const accepted = (field: yup.AnySchema, opts: { complete?: boolean } = {}): JsonSchema => {
  const shape = withoutDefaults(toJsonSchema(field)) as JsonSchema;
  return opts.complete ? { ...shape, required: Object.keys(shape.properties ?? {}) } : shape;
};

/** A schema without its `default` keywords (a property named `default` stays). */
const withoutDefaults = (s: unknown): unknown => {
  if (Array.isArray(s)) return s.map(withoutDefaults);
  if (typeof s !== 'object' || s === null) return s;
  const entries: [string, unknown][] = Object.entries(s).filter(([k]) => k !== 'default');
  return Object.fromEntries(
    entries.map(([k, v]) => [
      k,
      k === 'properties' && typeof v === 'object' && v !== null
        ? Object.fromEntries(Object.entries(v).map(([name, p]) => [name, withoutDefaults(p)]))
        : withoutDefaults(v),
    ]),
  );
};

/** A page of records: `{ data: [item], count }`, plus whatever else the list names. */
export const page = (
  item: JsonSchema,
  opts: { title?: string; max?: number; extra?: Record<string, JsonSchema> } = {},
): JsonSchema =>
  object(
    {
      ...opts.extra,
      data: arrayOf(item, opts.max ? { maxItems: opts.max } : {}),
      count: integer({ minimum: 0, ...(opts.max ? { maximum: opts.max } : {}) }),
    },
    { title: opts.title },
  );
