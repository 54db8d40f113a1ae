import * as yup from 'yup';
import { DomainError } from './errors';

/**
 * Validates with a yup schema and maps the first failure to `invalid_request` naming the field,
 * so every door reports bad input the same way.
 */
export function validate<S extends yup.AnySchema>(
  schema: S,
  input: unknown,
  /** Strict for JSON bodies: no coercion (42 is not a string). CLI flags arrive as strings and are coerced. */
  opts: { strict?: boolean } = {},
): yup.InferType<S> {
  try {
    return schema.validateSync(input, {
      abortEarly: true,
      stripUnknown: false,
      strict: opts.strict ?? false,
    });
  } catch (err) {
    if (err instanceof yup.ValidationError) {
      // An unknown member is reported on its object; name the member itself, as for every other field.
      const unknown =
        err.type === 'noUnknown'
          ? (typeof err.params?.unknown === 'string' ? err.params.unknown : '').split(', ')[0]
          : undefined;
      const prefix = err.path ? `${err.path}.` : '';
      const field = unknown ? prefix + unknown : err.path;
      throw new DomainError('invalid_request', err.message, field ? { field } : {});
    }
    throw err;
  }
}

export const emailSchema = yup
  .string()
  .trim()
  .lowercase()
  .max(254)
  .matches(/^[^\s@]+@[^\s@]+$/, '${path} must be an email address');

/**
 * A length limit in characters (code points), as JSON Schema's maxLength and PostgreSQL's length()
 * count them; yup's own max() counts UTF-16 units, so an emoji would count twice.
 */
export const maxChars = (max: number, message: string) => ({
  name: 'max',
  exclusive: true,
  params: { max },
  message,
  test: (v: string | null | undefined) => v == null || [...v].length <= max,
});

/** A page size for JSON doors: a whole number from 1 to `max`, `fallback` when not given. */
export const pageSize = (max: number, fallback: number) => {
  const message = `limit must be an integer from 1 to ${max}`;
  return yup.number().integer(message).min(1, message).max(max, message).default(fallback);
};

/**
 * A page size from 1 to `max`: a whole number, or its digits as text (a query string is text).
 * JSON Schema says integer; the REST door's query parameters are serialised integers.
 */
export const limitParam = (max: number) => {
  const message = `limit must be an integer from 1 to ${max}`;
  return yup
    .mixed<string | number>()
    .test('limit', message, (v) => {
      if (v === undefined) return true;
      const n = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : NaN;
      return Number.isInteger(n) && n >= 1 && n <= max;
    })
    .meta({ jsonSchema: { type: 'integer', minimum: 1, maximum: max, default: 25 } });
};
