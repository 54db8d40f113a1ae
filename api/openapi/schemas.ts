import type { ErrorCode } from '../../domain/kernel/errors';
import type { JsonSchema } from '../../domain/kernel/json-schema';
import { integer, object, oneOf, string } from '../../domain/kernel/shapes';
import { LEAD_STATUSES } from '../../domain/leads/status-rules';
import { PATCH_STEPS } from '../rest/lead-patch';

/** Text the service stores: any characters but NUL, which PostgreSQL text cannot hold (refused with 400). */
const NO_NUL = '^[^\\u0000]*$';

const allowsString = (type: unknown) => type === 'string' || (Array.isArray(type) && type.includes('string'));

/**
 * This door refuses NUL in any string it reads (PostgreSQL text cannot hold it); the document says so
 * on every free-text string of a schema generated from an operation's input.
 */
export function withoutNul(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (allowsString(out.type) && !out.pattern && !out.format && !out.enum && out.const === undefined)
    out.pattern = NO_NUL;
  for (const key of ['properties', 'items', 'additionalProperties'] as const) {
    const child = out[key];
    if (!child || typeof child !== 'object') continue;
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(child).map(([k, v]) => [k, withoutNul(v as JsonSchema)]))
        : withoutNul(child as JsonSchema);
  }
  return out;
}

/** The codes this door answers with; `payload_too_large` travels as invalid_request (413). */
const ERROR_CODES: Exclude<ErrorCode, 'payload_too_large'>[] = [
  'unauthorized',
  'forbidden',
  'invalid_request',
  'not_found',
  'conflict',
  'rate_limited',
  'needs_confirmation',
  'suppressed',
  'unavailable',
  'server_error',
];

/** The spec's error body: `{ error: { code, message, ... } }`. */
export const errorSchema = object({
  error: object(
    {
      code: oneOf(ERROR_CODES),
      message: string(),
      field: string({ description: 'The field, parameter or header that failed validation.' }),
      retry_after: integer({ minimum: 1, description: 'Seconds to wait (rate_limited, unavailable).' }),
      request_id: string({ description: 'Identifies the attempt (server_error, unavailable).' }),
      failed_step: oneOf(PATCH_STEPS),
      applied: { type: 'array', items: oneOf(PATCH_STEPS) },
      from: oneOf(LEAD_STATUSES),
      to: oneOf(LEAD_STATUSES),
      effect: string({ description: 'What would have happened (needs_confirmation).' }),
    },
    { optional: ['field', 'retry_after', 'request_id', 'failed_step', 'applied', 'from', 'to', 'effect'] },
  ),
});
