import type { Requirement } from '../../domain/kernel/permissions';
import { toJsonSchema, type JsonSchema } from '../../domain/kernel/json-schema';
import { searchParamsSchema } from '../../domain/leads/schemas';
import { deliveryParamsSchema } from '../../domain/webhooks/operations/deliveries';
import { schemas, withoutNul } from './schemas';

type Json = Record<string, unknown>;

const json = (schemaRef: string): Json => ({
  'application/json': { schema: { $ref: `#/components/schemas/${schemaRef}` } },
});
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const common = { 'Request-Id': header('Request-Id'), 'RateLimit-Policy': header('RateLimit-Policy') };
const limited = { ...common, RateLimit: header('RateLimit') };

const error = (description: string, extraHeaders: Json = {}) => ({
  description,
  headers: { ...common, ...extraHeaders },
  content: json('Error'),
});
const errors = {
  '400': error('The request did not validate; `field` names what.', { RateLimit: header('RateLimit') }),
  '401': error(
    'The key is missing, unknown, revoked, expired or not allowed from this address (one body for all).',
  ),
  '403': error('The key lacks the scope, or its owner no longer holds the role (one body for both).', {
    RateLimit: header('RateLimit'),
  }),
  '413': error('The request body is over 1 MB (code invalid_request).', { RateLimit: header('RateLimit') }),
  '429': error(
    'More than 300 requests a minute for this key (policy `default`), or too many refused requests from ' +
      'this address (policy `refused`, 60 a minute by default: checked before the key).',
    {
      RateLimit: header('RateLimit'),
      'Retry-After': header('Retry-After'),
    },
  ),
  '500': error('A service fault; `request_id` identifies the attempt.'),
  '503': error(
    'No answer within the request deadline, or the service is shedding load (code unavailable). The work ' +
      'may still complete: retry after `retry_after` seconds, with the same Idempotency-Key for an intake.',
    { 'Retry-After': header('Retry-After') },
  ),
};
const ok = (description: string, schemaRef: string, extraHeaders: Json = {}) => ({
  description,
  headers: { ...limited, ...extraHeaders },
  content: json(schemaRef),
});

const guarded = (need: Requirement) => ({
  security: [{ bearerAuth: [need.scope] }],
  'x-required-scope': need.scope,
  'x-minimum-role': need.minRole,
});

/** Query parameters from an operation's input schema, described once in the domain. */
const queryParameters = (input: Parameters<typeof toJsonSchema>[0]) =>
  Object.entries(toJsonSchema(input).properties as Record<string, JsonSchema>).map(
    ([name, { description, ...schema }]) => ({
      name,
      in: 'query',
      required: false,
      ...(description ? { description } : {}),
      schema: withoutNul(schema),
    }),
  );
const leadId = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

/**
 * The REST contract as OpenAPI 3.1. Parameters and bodies come from the same constants the
 * validation uses; test/integration/openapi.test.ts fails when the document and the yup schemas
 * disagree, and every response the integration tests receive is validated against this document.
 */
export function openApiDocument(): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Lead service REST API',
      version: '1.0.0',
      description:
        'Read, create and update sales leads and read webhook deliveries. Every request needs `Authorization: Bearer lk_live_...`. ' +
        "Keys carry scopes and their owner's live role; the narrower wins. 300 requests a minute per key.",
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'lk_live_<40 base62 characters>' },
      },
      headers: {
        'Request-Id': {
          description: 'Identifies this request in the audit log.',
          schema: { type: 'string', pattern: '^req_[0-9a-f]{32}$' },
          required: true,
        },
        'RateLimit-Policy': {
          description: 'IETF RateLimit-Policy: quota and window.',
          schema: { type: 'string' },
          required: true,
        },
        RateLimit: {
          description: 'IETF RateLimit: requests remaining (r) and seconds until the window resets (t).',
          schema: { type: 'string' },
          required: true,
        },
        'Retry-After': {
          description: 'Seconds to wait.',
          schema: { type: 'integer', minimum: 1 },
          required: true,
        },
        'Idempotent-Replayed': {
          description: '`true` when this is the stored first response for the Idempotency-Key.',
          schema: { type: 'string', enum: ['true'] },
        },
      },
      schemas,
    },
    paths: {
      '/api/v1/me': {
        get: {
          operationId: 'getMe',
          summary: 'The workspace, the key and the role it acts with',
          ...guarded({ scope: 'business:read', minRole: 'viewer' }),
          responses: { '200': ok('The caller.', 'Me'), ...errors },
        },
      },
      '/api/v1/leads': {
        get: {
          operationId: 'searchLeads',
          summary: 'Search live leads, newest first',
          ...guarded({ scope: 'leads:read', minRole: 'viewer' }),
          parameters: queryParameters(searchParamsSchema),
          responses: {
            '200': ok('Up to `limit` leads; `count` is how many are in `data`.', 'LeadList'),
            ...errors,
          },
        },
        post: {
          operationId: 'createLead',
          summary: 'Record an inbound lead (ad-form intake)',
          ...guarded({ scope: 'leads:write', minRole: 'member' }),
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: true,
              description: 'The first response is replayed for 24 hours for the same key and body.',
              schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
            },
          ],
          requestBody: { required: true, content: json('IntakeRequest') },
          responses: {
            '201': {
              ...ok('A new lead was created.', 'IntakeResponse', {
                'Idempotent-Replayed': header('Idempotent-Replayed'),
              }),
              links: {
                getLead: { operationId: 'getLead', parameters: { id: '$response.body#/data/id' } },
                updateLead: { operationId: 'updateLead', parameters: { id: '$response.body#/data/id' } },
              },
            },
            '200': ok('Merged into, or a duplicate of, an existing lead.', 'IntakeResponse', {
              'Idempotent-Replayed': header('Idempotent-Replayed'),
            }),
            '409': error(
              '`suppressed`: the contact is suppressed and nothing was stored; or `conflict`: a request with this Idempotency-Key is still running.',
              {
                RateLimit: header('RateLimit'),
              },
            ),
            ...errors,
          },
        },
      },
      '/api/v1/leads/{id}': {
        get: {
          operationId: 'getLead',
          summary: 'A lead with its last 20 messages',
          ...guarded({ scope: 'leads:read', minRole: 'viewer' }),
          parameters: [leadId],
          responses: {
            '200': ok('The lead (archived ones too).', 'LeadWithActivity'),
            '404': error('No such lead in this workspace.', { RateLimit: header('RateLimit') }),
            ...errors,
          },
        },
        patch: {
          operationId: 'updateLead',
          summary: 'Change details, then status, then add a note',
          ...guarded({ scope: 'leads:write', minRole: 'member' }),
          parameters: [leadId],
          requestBody: { required: true, content: json('LeadPatch') },
          responses: {
            '200': ok('Every step applied.', 'PatchResponse'),
            '404': error('No such lead in this workspace.', { RateLimit: header('RateLimit') }),
            '409': error(
              '`conflict`: a step was refused; `failed_step` names it and `applied` lists the steps that stay applied.',
              {
                RateLimit: header('RateLimit'),
              },
            ),
            ...errors,
          },
        },
      },
      '/api/v1/events': {
        get: {
          operationId: 'listDeliveries',
          summary: 'Webhook deliveries of the workspace, newest first',
          ...guarded({ scope: 'business:read', minRole: 'viewer' }),
          parameters: queryParameters(deliveryParamsSchema),
          responses: { '200': ok('Delivery records with the payload sent.', 'DeliveryList'), ...errors },
        },
      },
    },
  };
}
