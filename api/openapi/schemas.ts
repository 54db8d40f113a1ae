import { DELIVERY_STATUSES } from '../../domain/webhooks/rows';
import { CHANNELS } from '../../domain/conversations/channels';
import { toJsonSchema } from '../../domain/kernel/json-schema';
import * as yup from 'yup';
import { contactFields, intakeSchema, leadPatchSchema } from '../../domain/leads/schemas';
import { LEAD_STATUSES } from '../../domain/leads/status-rules';
import { SCOPES } from '../../domain/kernel/permissions';

/** JSON Schema (2020-12, as OpenAPI 3.1 uses) for bodies; built from the same constants the validation uses. */
type Schema = Record<string, unknown>;

const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
/** Text the service stores: any characters but NUL, which PostgreSQL text cannot hold (refused with 400). */
const NO_NUL = '^[^\\u0000]*$';
const nullable = (s: Schema): Schema => ({ ...s, type: [s.type as string, 'null'] });
const dateTime = str({ format: 'date-time' });
const obj = (properties: Record<string, Schema>, required: string[] = Object.keys(properties)): Schema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const allowsString = (type: unknown) => type === 'string' || (Array.isArray(type) && type.includes('string'));

/**
 * This door refuses NUL in any string it reads (PostgreSQL text cannot hold it); the document says so
 * on every free-text string of a schema generated from an operation's input.
 */
export function withoutNul(schema: Schema): Schema {
  const out: Schema = { ...schema };
  if (allowsString(out.type) && !out.pattern && !out.format && !out.enum && out.const === undefined)
    out.pattern = NO_NUL;
  for (const key of ['properties', 'items', 'additionalProperties'] as const) {
    const child = out[key];
    if (!child || typeof child !== 'object') continue;
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(child).map(([k, v]) => [k, withoutNul(v as Schema)]))
        : withoutNul(child as Schema);
  }
  return out;
}

const ERROR_CODES = [
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
] as const;

/** A lead's contact fields as stored: the same definitions intake and PATCH validate with. */
const contact = withoutNul(toJsonSchema(yup.object(contactFields))).properties as Record<string, Schema>;

export const schemas: Record<string, Schema> = {
  Error: obj(
    {
      error: obj(
        {
          code: str({ enum: [...ERROR_CODES] }),
          message: str(),
          field: str({ description: 'The field, parameter or header that failed validation.' }),
          retry_after: {
            type: 'integer',
            minimum: 1,
            description: 'Seconds to wait (rate_limited, unavailable).',
          },
          request_id: str({ description: 'Identifies the attempt (server_error, unavailable).' }),
          failed_step: str({ enum: ['lead.update', 'lead.set_status', 'lead.add_note'] }),
          applied: {
            type: 'array',
            items: str({ enum: ['lead.update', 'lead.set_status', 'lead.add_note'] }),
          },
          from: str({ enum: [...LEAD_STATUSES] }),
          to: str({ enum: [...LEAD_STATUSES] }),
          effect: str({ description: 'What would have happened (needs_confirmation).' }),
        },
        ['code', 'message'],
      ),
    },
    ['error'],
  ),
  Me: obj({
    workspace: obj({
      id: str({ format: 'uuid' }),
      name: str(),
      timezone: str(),
      industry: str(),
      status: str(),
    }),
    key: obj({
      name: str(),
      environment: str({ enum: ['live'] }),
      scopes: { type: 'array', items: str({ enum: [...SCOPES] }) },
    }),
    acting_as: obj({ role: nullable(str({ enum: ['viewer', 'member', 'admin', 'owner'] })) }),
  }),
  Lead: obj({
    id: str({ format: 'uuid' }),
    ...contact,
    status: str({ enum: [...LEAD_STATUSES] }),
    source: nullable(str()),
    needs_attention: { type: 'boolean' },
    follow_up: str({ enum: ['NOT_STARTED', 'ACTIVE', 'STOPPED'] }),
    score: {
      oneOf: [
        { type: 'null' },
        obj({
          total: { type: 'integer', minimum: 0, maximum: 100 },
          grade: str({ enum: ['A', 'B', 'C', 'D'] }),
        }),
      ],
    },
    archived: { type: 'boolean' },
    created_at: dateTime,
    updated_at: dateTime,
  }),
  LeadList: obj({
    data: { type: 'array', items: ref('Lead'), maxItems: 50 },
    count: { type: 'integer', minimum: 0 },
  }),
  ActivityItem: obj({
    type: str({ enum: ['message'] }),
    id: str({ format: 'uuid' }),
    direction: str({ enum: ['inbound', 'outbound'] }),
    channel: str({ enum: [...CHANNELS] }),
    status: str(),
    body: str({ maxLength: 500 }),
    at: dateTime,
  }),
  LeadWithActivity: obj({
    data: ref('Lead'),
    recent_activity: { type: 'array', items: ref('ActivityItem'), maxItems: 20 },
  }),
  // Request bodies come from the operations' own input schemas (described once, in the domain).
  IntakeRequest: withoutNul(toJsonSchema(intakeSchema)),
  IntakeResponse: obj({ data: ref('Lead'), outcome: str({ enum: ['CREATED', 'MERGED', 'DUPLICATE'] }) }),
  LeadPatch: withoutNul(toJsonSchema(leadPatchSchema)),
  Warning: obj({ code: str({ enum: ['status_unchanged', 'follow_up_stopped'] }), message: str() }),
  PatchResponse: obj({
    data: ref('Lead'),
    applied: { type: 'array', items: str({ enum: ['lead.update', 'lead.set_status', 'lead.add_note'] }) },
    warnings: { type: 'array', items: ref('Warning') },
  }),
  Envelope: obj({ id: str(), type: str(), created_at: dateTime, data: { type: 'object' } }),
  Delivery: obj(
    {
      id: str({ format: 'uuid' }),
      event_id: str(),
      type: str(),
      status: str({ enum: [...DELIVERY_STATUSES] }),
      attempts: { type: 'integer', minimum: 0 },
      response_status: nullable({ type: 'integer' }),
      next_attempt_at: nullable(dateTime),
      delivered_at: nullable(dateTime),
      created_at: dateTime,
      payload: ref('Envelope'),
      payload_redacted: {
        const: true,
        description:
          "Present when the key lacks leads:read: the payload's lead contact fields were left out.",
      },
    },
    [
      'id',
      'event_id',
      'type',
      'status',
      'attempts',
      'response_status',
      'next_attempt_at',
      'delivered_at',
      'created_at',
      'payload',
    ],
  ),
  DeliveryList: obj({
    data: { type: 'array', items: ref('Delivery'), maxItems: 100 },
    count: { type: 'integer', minimum: 0 },
  }),
};
