import Router from '@koa/router';
import type { Middleware } from 'koa';
import * as yup from 'yup';
import { keyActor } from '../../domain/kernel/actor';
import { DomainError, invalid } from '../../domain/kernel/errors';
import { toJsonSchema, type JsonSchema } from '../../domain/kernel/json-schema';
import {
  closedInput,
  type AnyOperation,
  type Area,
  type RestBinding,
  type Services,
} from '../../domain/kernel/operation';
import type { Requirement } from '../../domain/kernel/permissions';
import { isIdempotencyKey } from '../../domain/kernel/idempotency';
import { authorise, execute } from '../../domain/kernel/runner';
import { validate } from '../../domain/kernel/validate';
import { allOperations } from '../../domain/registry';
import { objectBody } from '../../domain/leads';
import type { AppContext, RequestState } from '../context';
import { singleValued, typedQuery } from './query';

export const API_PREFIX = '/api/v1';
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** A REST route, as mounted and as the OpenAPI document describes it. */
export type RestRoute = {
  method: RestBinding<unknown>['method'];
  /** Koa style, with the prefix: `/api/v1/leads/:id`. */
  path: string;
  operationId: string;
  /** Its area: the document's section (tag) it is listed in. */
  area: Area;
  summary: string;
  description: string;
  requirement: Requirement;
  /** The registered operations it runs. */
  operations: AnyOperation[];
  /** Path parameters, each with its schema. */
  pathParams: Record<string, JsonSchema>;
  /** The query parameters (GET) or the JSON body (POST, PATCH), as one object schema. */
  query?: JsonSchema;
  body?: JsonSchema;
  /** It takes the `Idempotency-Key` header. */
  idempotent?: boolean;
  output: JsonSchema;
  /** Success statuses, with what each means. */
  success: Record<number, string>;
  /** Other answers than the common refusals, with what each means. */
  answers: Partial<Record<number, string>>;
  handler: (services: Services) => Middleware<RequestState>;
};

/** The key behind the request, acting through the REST door. */
const restActor = (ctx: AppContext) =>
  keyActor(ctx.state.principal!, {
    door: 'rest',
    requestId: ctx.state.requestId,
    clientIp: ctx.state.clientIp,
  });

function idempotencyKey(key: string | undefined): string {
  if (!key)
    throw new DomainError('invalid_request', `The ${IDEMPOTENCY_HEADER} header is required.`, {
      field: IDEMPOTENCY_HEADER,
    });
  if (!isIdempotencyKey(key))
    throw new DomainError(
      'invalid_request',
      `${IDEMPOTENCY_HEADER} must be 1 to 255 visible ASCII characters.`,
      { field: IDEMPOTENCY_HEADER },
    );
  return key;
}

const pathParamsOf = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);

/**
 * A path parameter checked with its input field's own rules (the operation's schema, not a copy), early
 * on purpose: its refusal names the parameter as the path does (`id`), where the runner, which checks the
 * whole input again, would name the field (`leadId`).
 */
const pathParam = (op: AnyOperation, field: string, name: string, value: string): unknown =>
  validate(yup.reach(op.input, field) as yup.AnySchema, value, { strict: true, path: name });

/** A refusal naming an input field the door takes from elsewhere names it as this door does. */
const inDoorTerms = (err: DomainError, renames: Record<string, string>) => {
  const field = typeof err.details.field === 'string' ? renames[err.details.field] : undefined;
  return field ? new DomainError(err.code, err.message, { ...err.details, field }, err.auditReason) : err;
};

/** A registered operation as a REST route: path, query string or body, and headers map onto its input. */
function operationRoute(op: AnyOperation, b: RestBinding<unknown>): RestRoute {
  const params = pathParamsOf(b.path);
  const fieldOf = (param: string) => b.params?.[param] ?? param;
  const input = toJsonSchema(op.input as yup.AnyObjectSchema);
  const properties = (input.properties ?? {}) as Record<string, JsonSchema>;
  const fromPath = new Set(params.map(fieldOf));
  const idempotencyField = op.idempotency?.field;
  const rest = toJsonSchema(op.input as yup.AnyObjectSchema, {
    omit: [...fromPath, ...(idempotencyField ? [idempotencyField] : [])],
  });
  const readsBody = b.method === 'post' || b.method === 'patch';
  const renames = idempotencyField ? { [idempotencyField]: IDEMPOTENCY_HEADER } : {};
  const created = b.answers?.[201];
  return {
    method: b.method,
    path: `${API_PREFIX}${b.path}`,
    operationId: b.operationId,
    area: b.area,
    summary: op.title,
    description: `${op.description} Returns ${op.returns}`,
    requirement: op.requirement,
    operations: [op],
    pathParams: Object.fromEntries(params.map((p) => [p, properties[fieldOf(p)] ?? { type: 'string' }])),
    ...(readsBody ? { body: rest } : { query: rest }),
    idempotent: idempotencyField !== undefined,
    output: op.output,
    success: created ? { 200: b.success ?? 'Done.', 201: created } : { 200: b.success ?? 'Done.' },
    answers: { 404: b.answers?.[404], 409: b.answers?.[409] },
    handler: (services) => async (ctx) => {
      const key = idempotencyField ? idempotencyKey(ctx.get(IDEMPOTENCY_HEADER) || undefined) : undefined;
      const values: Record<string, unknown> = readsBody
        ? { ...objectBody(ctx.state.body) }
        : typedQuery(singleValued(ctx.query), input);
      const fromParams = params.map(
        (p) =>
          [fieldOf(p), pathParam(op, fieldOf(p), p, (ctx.params as Record<string, string>)[p]!)] as const,
      );
      // A body naming a field its path fills is refused as the body alone would be (PATCH /leads/{id}
      // with a `leadId`: "leadId is not a lead field"), never silently overwritten.
      if (readsBody && fromParams.some(([f]) => f in values))
        validate(closedInput(op).omit([...fromPath]), op.prepare ? op.prepare(values) : values, {
          strict: true,
        });
      for (const [field, value] of fromParams) values[field] = value;
      if (idempotencyField) {
        // The key travels in its header here; the assistant door sends it as an argument.
        if (idempotencyField in values)
          throw invalid(
            idempotencyField,
            `${idempotencyField} is not a field of this body; send the ${IDEMPOTENCY_HEADER} header`,
          );
        values[idempotencyField] = key;
      }
      const result = await execute(services, op, restActor(ctx), values).catch((err: unknown) => {
        throw err instanceof DomainError ? inDoorTerms(err, renames) : err;
      });
      if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
      if (result.refusal) throw inDoorTerms(result.refusal, renames);
      ctx.status = b.status?.(result.output) ?? 200;
      ctx.body = result.output as unknown;
    },
  };
}

/** Every REST route: each registered operation with a REST binding. */
export const restRoutes = (): RestRoute[] =>
  allOperations().flatMap((op) => (op.doors.rest ? [operationRoute(op, op.doors.rest)] : []));

/**
 * Refuses a caller the route's operation would refuse, before the handler parses anything: a key
 * without the permission learns nothing of the input's schema from a 400. It is the runner's own rule
 * (`authorise`), asked early on purpose; the runner asks it again as every run does.
 */
const guard =
  (route: RestRoute): Middleware<RequestState> =>
  async (ctx, next) => {
    // Authentication ran before every route: a request without a key never reaches one.
    if (!ctx.state.principal) throw new DomainError('forbidden', 'forbidden', {}, 'no principal');
    for (const op of route.operations) authorise(op, restActor(ctx));
    await next();
  };

/** The /api/v1 router: each route guarded by its operation's rule before its handler parses anything. */
export function v1Router(services: Services) {
  const router = new Router<RequestState>();
  for (const route of restRoutes()) router[route.method](route.path, guard(route), route.handler(services));
  return router;
}
