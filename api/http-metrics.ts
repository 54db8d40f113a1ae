import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { databaseMetrics, seriesIn } from '../infra/prometheus';
import type { AuditWriter } from './audit-writer';
import type { AppContext, RequestState } from './context';
import { MCP_PATH } from './mcp/route';
import { API_PREFIX } from './rest/routes';

/** Served by api/openapi/route.ts before the key check. */
const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Seconds; the request deadline (REQUEST_TIMEOUT_MS) is 10 s by default. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const doorOf = (ctx: AppContext): 'rest' | 'mcp' | 'public' | 'openapi' => {
  const door = ctx.state.auditDoor;
  if (door === 'mcp' || door === 'public') return door;
  return ctx.path === OPENAPI_PATH ? 'openapi' : 'rest';
};

/**
 * The route's pattern (`/api/v1/leads/:id`), never the path a caller typed: a label holds no id or
 * token, and its values stay few. A request refused before routing (no key, rate-limited) is matched
 * against the REST routes here; a path no route serves is `unmatched`.
 */
const routeOf = (ctx: AppContext, door: string, rest: Router<RequestState>): string => {
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof matched === 'string') return matched;
  if (door === 'mcp') return MCP_PATH;
  if (door === 'openapi') return OPENAPI_PATH;
  const layer = rest.match(ctx.path, ctx.method).pathAndMethod.find((l) => l.methods.length > 0);
  return typeof layer?.path === 'string' ? layer.path : 'unmatched';
};

/**
 * The API's series in `registry`: requests by door, route, method and status with their latency,
 * refusals by kind, rate-limited calls, database errors, and (read at scrape time) the audit backlog
 * and the database pool. The middleware goes first in the chain, and counts from what the rest of
 * the chain left in `ctx.state`; a request costs a few map lookups, no I/O.
 */
export function httpMetrics(
  registry: Registry,
  deps: { db: DataSource; audits: AuditWriter; auditLimit: number; rest: Router<RequestState> },
): Middleware<RequestState> {
  const series = seriesIn(registry);
  const labels = ['door', 'route', 'method', 'status'] as const;
  const requests = series.counter(
    'leads_http_requests_total',
    'Requests answered, by door (rest, mcp, public, openapi), route pattern, method and status.',
    labels,
  );
  const latency = series.histogram(
    'leads_http_request_duration_seconds',
    'Time from a request arriving to its answer, audit row included, by door, route pattern, method and status.',
    labels,
    LATENCY_BUCKETS,
  );
  const refusals = series.counter(
    'leads_refusals_total',
    'Requests refused, by door and kind: the error code answered (unauthorized, forbidden, invalid_request, rate_limited, unavailable...) or protocol (a malformed MCP request).',
    ['door', 'kind'],
  );
  const rateLimited = series.counter(
    'leads_rate_limited_total',
    'Requests answered 429, by door and the limit reached: key (RATE_LIMIT_PER_MINUTE), address (REFUSED_PER_MINUTE), quote_page (QUOTE_PAGE_PER_MINUTE), unsubscribe (UNSUBSCRIBE_PER_MINUTE), hooks (HOOKS_PER_MINUTE, per workspace) or hooks_refused (failed webhook proofs per address).',
    ['door', 'limit'],
  );
  series.gauge(
    'leads_audit_backlog',
    'Audit rows queued or being written; at leads_audit_backlog_limit the API sheds requests with 503.',
    (g) => g.set(deps.audits.backlog()),
  );
  series
    .gauge(
      'leads_audit_backlog_limit',
      'AUDIT_QUEUE_LIMIT: the audit backlog at which the API sheds requests.',
    )
    .set(deps.auditLimit);
  const database = databaseMetrics(registry, deps.db);

  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const s = ctx.state;
      const door = doorOf(ctx);
      const method = METHODS.has(ctx.method) ? ctx.method : 'other';
      const route = routeOf(ctx, door, deps.rest);
      const status = String(ctx.status);
      requests.labels(door, route, method, status).inc();
      latency.labels(door, route, method, status).observe((performance.now() - started) / 1000);
      if (s.refusal) refusals.labels(door, s.refusal).inc();
      if (s.rateLimited) rateLimited.labels(door, s.rateLimited).inc();
      if (s.dbError) database.error(s.dbError);
    }
  };
}
