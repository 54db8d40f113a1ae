import { createServer } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { closeServer, listening } from './listen';
import type { Logger } from './logger';

/** A registry holding the process's own series (CPU, memory, event-loop lag, GC), as prom-client names them. */
export function metricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * Declares series in `registry`: a name, what it means, its labels; the rest as prom-client does.
 * A gauge's `read` runs when Prometheus scrapes, so nothing keeps it current in between.
 */
export function seriesIn(registry: Registry) {
  const registers = [registry];
  return {
    counter: <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []) =>
      new Counter<L>({ name, help, labelNames, registers }),
    histogram: <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
      new Histogram<L>({ name, help, labelNames, buckets, registers }),
    gauge: <L extends string = never>(
      name: string,
      help: string,
      read?: (gauge: Gauge<L>) => void,
      labelNames: readonly L[] = [],
    ) =>
      new Gauge<L>({
        name,
        help,
        labelNames,
        registers,
        ...(read && {
          collect() {
            read(this);
          },
        }),
      }),
  };
}

/** What node-postgres's pool (TypeORM's `driver.master`) says about itself. */
type PoolState = { totalCount: number; idleCount: number; waitingCount: number; options: { max: number } };

export type DatabaseErrorKind = 'unavailable' | 'failed';

/**
 * The database pool's use, read from the pool when Prometheus scrapes (nothing is added to a query's
 * path), and a count of the database errors the caller reports: `unavailable` (unreachable, timed
 * out, shutting down) or `failed` (a statement refused).
 */
export function databaseMetrics(registry: Registry, db: DataSource) {
  const series = seriesIn(registry);
  const pool = () => (db.driver as unknown as { master?: PoolState }).master;
  series.gauge(
    'leads_db_pool_connections',
    'Connections the database pool holds, by state: busy (lent to a query or transaction) or idle.',
    (g) => {
      const p = pool();
      g.set({ state: 'busy' }, p ? p.totalCount - p.idleCount : 0);
      g.set({ state: 'idle' }, p?.idleCount ?? 0);
    },
    ['state'],
  );
  series.gauge(
    'leads_db_pool_waiting',
    'Queries waiting for a free connection: above zero for long, the pool (DB_POOL_SIZE) is too small.',
    (g) => g.set(pool()?.waitingCount ?? 0),
  );
  series.gauge('leads_db_pool_max', 'The most connections the pool opens (DB_POOL_SIZE).', (g) =>
    g.set(pool()?.options.max ?? 0),
  );
  const errors = series.counter(
    'leads_db_errors_total',
    'Database errors met while serving: unavailable (unreachable, timed out) or failed (a statement refused).',
    ['kind'],
  );
  for (const kind of ['unavailable', 'failed'] as const) errors.inc({ kind }, 0);
  return { error: (kind: DatabaseErrorKind) => errors.inc({ kind }) };
}

export type MetricsServer = { url: string; close: () => Promise<void> };

/**
 * `GET /metrics` on a port of its own, apart from the API, so it can stay off the public network.
 * `more` appends text from another exporter (the Temporal SDK's); when it fails, its part is left out.
 */
export async function serveMetrics(
  registry: Registry,
  opts: { host: string; port: number; log: Logger; more?: () => Promise<string> },
): Promise<MetricsServer> {
  const page = async () => {
    const [own, more] = await Promise.all([registry.metrics(), opts.more?.().catch(() => '') ?? '']);
    return more ? `${own}\n${more}` : own;
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://metrics.local').pathname;
    if (path !== '/metrics' || req.method !== 'GET') {
      res.writeHead(404).end();
      return;
    }
    page().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => {
        opts.log.error('metrics collection failed', { error: String(err) });
        res.writeHead(500).end();
      },
    );
  });
  const url = await listening(server.listen(opts.port, opts.host), opts.host);
  return {
    url: `${url}/metrics`,
    close: () => {
      const closed = closeServer(server);
      // Prometheus keeps its connection open between scrapes; a scrape cut short is only retried.
      server.closeAllConnections();
      return closed;
    },
  };
}
