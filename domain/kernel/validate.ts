import * as yup from 'yup';
import { DomainError } from './errors';

/**
 * Validates with a yup schema and maps the first failure to `invalid_request` naming the field,
 * so every door reports bad input the same way.
 */
export function validate<S extends yup.AnySchema>(
  schema: S,
  input: unknown,
  /**
   * Strict for JSON: no coercion (42 is not a string); CLI flags arrive as text and are coerced.
   * `path` names a lone value (a path parameter) in messages written with `${path}`.
   */
  opts: { strict?: boolean; path?: string } = {},
): yup.InferType<S> {
  try {
    const value: unknown = schema.validateSync(input, {
      abortEarly: true,
      stripUnknown: false,
      strict: opts.strict ?? false,
      ...(opts.path ? { path: opts.path } : {}),
    } as yup.ValidateOptions);
    return opts.strict ? withDefaults(schema, value) : value;
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

/**
 * Strict validation casts nothing, so it also leaves out defaults (a page size of 25): fill those in
 * for the fields a JSON caller left out, as a lenient cast would.
 */
function withDefaults(schema: yup.AnySchema, value: unknown): unknown {
  if (!(schema instanceof yup.ObjectSchema) || !value || typeof value !== 'object') return value;
  const out = { ...(value as Record<string, unknown>) };
  for (const [key, field] of Object.entries(schema.fields as Record<string, yup.AnySchema>)) {
    const fallback: unknown = field.spec?.default;
    if (out[key] === undefined && fallback !== undefined && typeof fallback !== 'function')
      out[key] = fallback;
  }
  return out;
}

/** An email address: something, an @, and a domain with a dot. The one rule for every email here. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A UUID, in any case (ids are stored lower-case). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** How many records a list answers unless told otherwise, everywhere. */
export const DEFAULT_PAGE_SIZE = 25;

export const emailSchema = yup
  .string()
  .trim()
  .lowercase()
  .max(254)
  .matches(EMAIL_PATTERN, '${path} must be an email address');

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

/** A page size: a whole number from 1 to `max`, 25 when not given. */
export const pageSize = (max: number) => {
  const message = `limit must be an integer from 1 to ${max}`;
  return yup
    .number()
    .typeError(message)
    .integer(message)
    .min(1, message)
    .max(max, message)
    .default(DEFAULT_PAGE_SIZE);
};
