import { withIntegerFormat, type JsonSchema } from './json-schema';

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
export const nullable = (s: JsonSchema): JsonSchema =>
  typeof s.type === 'string' ? { ...s, type: [s.type, 'null'] } : { anyOf: [s, { type: 'null' }] };
/** Any JSON value the operation passes through as it is (an event payload, a recorded outcome). */
export const anyJson: JsonSchema = {};

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
