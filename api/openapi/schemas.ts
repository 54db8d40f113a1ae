import type { ErrorCode } from '../../domain/kernel/errors';
import { ERROR_TEXT_MAX } from '../errors';
import type { JsonSchema } from '../../domain/kernel/json-schema';
import { arrayOf, integer, object, oneOf, string } from '../../domain/kernel/shapes';
import { LEAD_STATUSES } from '../../domain/leads';
import { allOperations } from '../../domain/registry';

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
  for (const key of ['properties', 'items', 'additionalProperties', 'anyOf', 'allOf', 'oneOf'] as const) {
    const child = out[key];
    if (!child || typeof child !== 'object') continue;
    out[key] = Array.isArray(child)
      ? child.map((c) => withoutNul(c as JsonSchema))
      : key === 'properties'
        ? Object.fromEntries(Object.entries(child).map(([k, v]) => [k, withoutNul(v as JsonSchema)]))
        : withoutNul(child as JsonSchema);
  }
  return out;
}

/**
 * The longest wait a refusal asks for, in seconds: the rate limits count in one-minute windows, and a
 * service that is shedding load asks for 5.
 */
export const MAX_RETRY_AFTER = 60;

/** `req_` and 32 hex digits (api/middleware/request-id.ts). */
export const requestIdSchema = (description: string) =>
  string({ pattern: '^req_[0-9a-f]{32}$', maxLength: 36, description });

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

/** The steps an operation made of steps names in a refusal (`failed_step`, `applied`): PATCH /leads/{id}'s. */
const STEPS = [...new Set(allOperations().flatMap((op) => (op.steps ?? []).map((step) => step.name)))];

/** The spec's error body: `{ error: { code, message, ... } }`. */
export const errorSchema = object({
  error: object(
    {
      code: oneOf(ERROR_CODES),
      message: string({ maxLength: ERROR_TEXT_MAX.message }),
      field: string({
        maxLength: ERROR_TEXT_MAX.field,
        description: 'The field, parameter or header that failed validation.',
      }),
      retry_after: integer({
        minimum: 1,
        maximum: MAX_RETRY_AFTER,
        description: 'Seconds to wait (rate_limited, unavailable).',
      }),
      request_id: requestIdSchema('Identifies the attempt (server_error, unavailable).'),
      failed_step: oneOf(STEPS),
      applied: arrayOf(oneOf(STEPS), { maxItems: STEPS.length }),
      from: oneOf(LEAD_STATUSES),
      to: oneOf(LEAD_STATUSES),
      effect: string({
        maxLength: ERROR_TEXT_MAX.effect,
        description: 'What would have happened (needs_confirmation).',
      }),
    },
    { optional: ['field', 'retry_after', 'request_id', 'failed_step', 'applied', 'from', 'to', 'effect'] },
  ),
});
