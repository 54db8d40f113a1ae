import { isDeepStrictEqual } from 'node:util';
import type { JsonSchema } from '../../domain/kernel/json-schema';
import { EVENT_SCHEMAS } from '../../domain/kernel/event-validation';
import { IDEMPOTENCY_KEY } from '../../domain/kernel/idempotency';
import type { Requirement } from '../../domain/kernel/permissions';
import { IDEMPOTENCY_HEADER, restRoutes, type RestRoute } from '../rest/routes';
import { integer, string } from '../../domain/kernel/shapes';
import { MAX_RETRY_AFTER, errorSchema, requestIdSchema, withoutNul } from './schemas';
import { AREA as WEBHOOKS } from '../../domain/webhooks';

type Json = Record<string, unknown>;

/** The rate-limit policies: a key's, and an address's allowance of refused requests. */
const POLICIES = 'default|refused';

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const common = { 'Request-Id': header('Request-Id'), 'RateLimit-Policy': header('RateLimit-Policy') };
const limited = { ...common, RateLimit: header('RateLimit') };
const json = (schema: JsonSchema): Json => ({ 'application/json': { schema } });
const errorRef = { $ref: '#/components/schemas/Error' };

const error = (description: string, extraHeaders: Json = {}) => ({
  description,
  headers: { ...common, ...extraHeaders },
  content: json(errorRef),
});
const refusal = (description: string) => error(description, { RateLimit: header('RateLimit') });
const errors = {
  '400': refusal('The request did not validate; `field` names what.'),
  '401': refusal(
    'The key is missing, unknown, revoked, expired or not allowed from this address (one body for all). ' +
      "It counts against the address's allowance of refused requests (policy `refused`), which the rate " +
      'headers describe.',
  ),
  '403': refusal('The key lacks the scope, or its owner no longer holds the role (one body for both).'),
  '413': refusal('The request body is over 1 MB (code invalid_request).'),
  '429': error(
    'More than 300 requests a minute for this key (policy `default`), or too many refused requests from ' +
      'this address (policy `refused`, 60 a minute by default: checked before the key).',
    { RateLimit: header('RateLimit'), 'Retry-After': header('Retry-After') },
  ),
  '500': error('A service fault; `request_id` identifies the attempt.'),
  '503': error(
    'No answer within the request deadline, or the service is shedding load (code unavailable). The work ' +
      'may still complete: retry after `retry_after` seconds, with the same Idempotency-Key for an intake.',
    { 'Retry-After': header('Retry-After') },
  ),
};

const guarded = (need: Requirement) => ({
  security: [{ bearerAuth: need.scope === 'any' ? [] : [need.scope] }],
  'x-required-scope': need.scope,
  'x-minimum-role': need.minRole,
});

const pascal = (id: string) => id[0]!.toUpperCase() + id.slice(1);

/** A route's section of the document: the tag its area declares. */
const tagOf = (route: RestRoute) => route.area.tag;

/** The document's sections: each area with a route, as it describes itself. */
const tagsOf = (routes: RestRoute[]) =>
  [
    ...new Map(
      routes.map((r) => [r.area.tag, { name: r.area.tag, description: r.area.description }]),
    ).values(),
  ].sort((a, b) => a.name.localeCompare(b.name));

/**
 * Names shapes for the document: every titled schema (a Lead, a LeadList) becomes a component, and
 * where it appears a `$ref` to it. One title must always name the same shape.
 */
class Components {
  readonly schemas: Record<string, JsonSchema> = { Error: errorSchema };

  /** A `$ref` to the schema as a component, named by its title (or `fallback` when it has none). */
  ref(schema: JsonSchema, fallback?: string): JsonSchema {
    const title = typeof schema.title === 'string' ? schema.title : fallback;
    const inner = this.hoist(schema, true);
    if (!title) return inner;
    const known = this.schemas[title];
    if (known && !isDeepStrictEqual(known, inner)) throw new Error(`two shapes are titled ${title}`);
    this.schemas[title] = inner;
    return { $ref: `#/components/schemas/${title}` };
  }

  private hoist(node: unknown, top = false): JsonSchema {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return node as JsonSchema;
    const n = node as JsonSchema;
    if (!top && typeof n.title === 'string') return this.ref(n);
    const walk = (v: unknown): unknown =>
      Array.isArray(v) ? v.map((x) => this.hoist(x)) : v && typeof v === 'object' ? this.hoist(v) : v;
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(n)) {
      out[k] =
        k === 'properties' && v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, walk(s)]))
          : walk(v);
    }
    return out;
  }
}

/**
 * What a created record leads to: every route on the path below the creating one (`POST /leads` →
 * `GET` and `PATCH /leads/{id}`), given the new record's id. Clients (and the fuzzer's stateful
 * phase) follow these links.
 */
function linksFrom(route: RestRoute, routes: RestRoute[]): Json {
  const below = routes.filter((r) => new RegExp(`^${route.path}/:\\w+$`).test(r.path));
  return Object.fromEntries(
    below.map((r) => {
      const param = Object.keys(r.pathParams)[0]!;
      return [
        r.operationId,
        { operationId: r.operationId, parameters: { [param]: '$response.body#/data/id' } },
      ];
    }),
  );
}

/** One route as an OpenAPI operation: parameters, body and answers from its operations' schemas. */
function operationOf(route: RestRoute, components: Components, routes: RestRoute[]): Json {
  const param = (name: string, where: 'path' | 'query', schema: JsonSchema, required: boolean) => {
    // `x-mcp-header` is the assistant door's business (SEP-2243), not this one's.
    const { description, 'x-mcp-header': _mirrored, ...rest } = schema;
    void _mirrored;
    return {
      name,
      in: where,
      required,
      ...(typeof description === 'string' ? { description } : {}),
      schema: withoutNul(rest),
    };
  };
  const query = Object.entries((route.query?.properties ?? {}) as Record<string, JsonSchema>).map(
    ([name, schema]) => param(name, 'query', schema, false),
  );
  const parameters = [
    ...Object.entries(route.pathParams).map(([name, schema]) => param(name, 'path', schema, true)),
    ...query,
    ...(route.idempotent
      ? [
          {
            name: IDEMPOTENCY_HEADER,
            in: 'header',
            required: true,
            description: 'The first response is replayed for 24 hours for the same key and body.',
            schema: {
              type: 'string',
              minLength: 1,
              maxLength: IDEMPOTENCY_KEY.maxLength,
              pattern: IDEMPOTENCY_KEY.pattern.source,
            },
          },
        ]
      : []),
  ];
  const output = components.ref(route.output, `${pascal(route.operationId)}Response`);
  const replayed = route.idempotent ? { 'Idempotent-Replayed': header('Idempotent-Replayed') } : {};
  const links = route.method === 'post' ? linksFrom(route, routes) : {};
  const success = Object.fromEntries(
    Object.entries(route.success).map(([status, description]) => [
      status,
      {
        description,
        headers: { ...limited, ...replayed },
        content: json(output),
        ...(status === '201' && Object.keys(links).length > 0 ? { links } : {}),
      },
    ]),
  );
  const answers = Object.fromEntries(
    Object.entries(route.answers).flatMap(([status, description]) =>
      description ? [[status, refusal(description)]] : [],
    ),
  );
  return {
    operationId: route.operationId,
    tags: [tagOf(route)],
    summary: route.summary,
    description: route.description,
    ...guarded(route.requirement),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: json(components.ref(withoutNul(route.body), `${pascal(route.operationId)}Body`)),
          },
        }
      : {}),
    responses: { ...success, ...answers, ...errors },
  };
}

/**
 * The REST contract as OpenAPI 3.1, generated from the routes, which come from the registered
 * operations: parameters, bodies and answers are the operations' own schemas. Every response the
 * integration tests receive is validated against this document.
 */
export function openApiDocument(): Json {
  const components = new Components();
  const paths: Record<string, Json> = {};
  const routes = restRoutes();
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    paths[path] = { ...paths[path], [route.method]: operationOf(route, components, routes) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Lead service REST API',
      version: '1.0.0',
      description:
        'Read, create and update sales leads and read webhook deliveries. Every request needs `Authorization: Bearer lk_live_...`. ' +
        "Keys carry scopes and their owner's live role; the narrower wins. 300 requests a minute per key.",
    },
    // The API is served from wherever this document is: production, staging or a local stack alike.
    servers: [
      {
        url: '/',
        description: 'The host serving this document (production, staging or local).',
        'x-internal': false,
      },
    ],
    tags: tagsOf(routes),
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'lk_live_<40 base62 characters>' },
        // How a webhook receiver knows a delivery is the service's: not a key, but the closest scheme.
        webhookSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'service-signature',
          description:
            "Sent with every delivery: `t=<unix seconds>,v1=<hex HMAC-SHA256 of '<t>.<raw body>'>`, keyed with the endpoint's signing secret (`whsec_...`). Reject a timestamp more than 300 seconds from your clock.",
        },
      },
      headers: {
        'Request-Id': {
          description: 'Identifies this request in the audit log.',
          schema: requestIdSchema('`req_` and 32 hex digits.'),
          required: true,
        },
        'RateLimit-Policy': {
          description:
            'IETF RateLimit-Policy: the policy (`default` for a key, `refused` for an address without a valid key), its quota (q) and window in seconds (w).',
          schema: string({ pattern: `^"(${POLICIES})";q=[0-9]{1,9};w=60$`, maxLength: 40 }),
          required: true,
        },
        RateLimit: {
          description:
            'IETF RateLimit: the policy, requests remaining (r) and seconds until the window resets (t).',
          schema: string({ pattern: `^"(${POLICIES})";r=[0-9]{1,9};t=[0-9]{1,2}$`, maxLength: 40 }),
          required: true,
        },
        'Retry-After': {
          description: 'Seconds to wait.',
          schema: integer({ minimum: 1, maximum: MAX_RETRY_AFTER }),
          required: true,
        },
        'Idempotent-Replayed': {
          description: '`true` when this is the stored first response for the Idempotency-Key.',
          schema: { type: 'string', enum: ['true'] },
        },
      },
      schemas: { ...components.schemas, ...eventSchemas() },
    },
    paths,
    webhooks: eventWebhooks(),
  };
}

/** A published event schema, without the keys that make it a document of its own. */
const embedded = (schema: Json): Json => {
  const rest = { ...schema };
  delete rest.$schema;
  delete rest.$id;
  return rest;
};

/** The envelope (`EventEnvelope`) and each type's data (`EventData.<type>`), as components. */
function eventSchemas(): Record<string, Json> {
  return {
    EventEnvelope: embedded(EVENT_SCHEMAS.envelope),
    ...Object.fromEntries(
      Object.entries(EVENT_SCHEMAS.types).map(([type, t]) => [`EventData.${type}`, embedded(t.schema)]),
    ),
  };
}

/** `lead.status_changed` → `leadStatusChanged`. */
const camel = (type: string) =>
  type
    .split(/[._]/)
    .map((w, i) => (i === 0 ? w : pascal(w)))
    .join('');

/**
 * OpenAPI 3.1 `webhooks`: what an endpoint receives, one entry per event type, each body the envelope
 * with that type and its data. The same schemas `GET /api/v1/event-types` serves.
 */
function eventWebhooks(): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(EVENT_SCHEMAS.types).map(([type, t]) => [
      type,
      {
        post: {
          operationId: `${camel(type)}Event`,
          tags: [WEBHOOKS.tag],
          summary: type,
          description: `${t.description} Signed with \`service-signature\`; retried on failure for about 22.6 hours.`,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  allOf: [
                    { $ref: '#/components/schemas/EventEnvelope' },
                    {
                      type: 'object',
                      properties: {
                        type: { const: type },
                        data: { $ref: `#/components/schemas/EventData.${type}` },
                      },
                    },
                  ],
                },
              },
            },
          },
          security: [{ webhookSignature: [] }],
          responses: { '200': { description: 'Any 2xx within 10 seconds acknowledges the delivery.' } },
        },
      },
    ]),
  );
}
