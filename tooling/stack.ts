import type { DataSource } from 'typeorm';
import type { RunningApi } from '../api/listen';
import { openDatabase } from '../domain/data-source';
import { loadConfig, type Config } from '../infra/config';
import { createLogger, type Logger } from '../infra/logger';
import type { RunningWorker } from '../worker/run';
import { labelled, type Stop, type Stops } from './cleanup';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './postgres';
import { freePort } from './processes';
import { startTemporalDevServer, type TemporalDevServer } from './temporal-server';

export type StackOptions = {
  log: Logger;
  /** Every part started registers its stop here, so they stop in reverse. */
  stops: Stops;
  /** Checked after each part: a caller that gave up gets an error, not a stack. */
  signal?: AbortSignal;
  /** Embedded PostgreSQL; `fast` trades durability for speed (tests, fuzzing), benches keep the default. */
  postgres?: { dataDir: string; database: string; fast?: boolean; settings?: Record<string, string> };
  /**
   * Migrates and opens a pool: on `url`, else the PostgreSQL started here, else the services'
   * DATABASE_URL. The pool size defaults to the services' DB_POOL_SIZE when `env` is given.
   */
  database?: { url?: string; poolSize?: number };
  /** The Temporal dev server: in memory unless `dbFile`, with the Web UI unless `headless`. */
  temporal?: { headless?: boolean; dbFile?: string; port?: number; uiPort?: number };
  /**
   * Settings of the worker and the API. DATABASE_URL and TEMPORAL_ADDRESS of the parts started
   * here override it; the resulting configuration is checked before anything is migrated.
   */
  env?: NodeJS.ProcessEnv;
  /** The worker and its outbox relay, in this process; needs `database` and `env`. */
  worker?: true;
  /** The REST API, in this process; needs `database` and `env`. */
  api?: true;
};

// A part is there when its option was given, maybe there when the option may be undefined.
type Part<O, K extends keyof StackOptions, T> =
  O extends Record<K, infer V> ? (undefined extends V ? T | undefined : T) : undefined;

export type Stack<O extends StackOptions> = {
  postgres: Part<O, 'postgres', EmbeddedPostgres>;
  db: Part<O, 'database', DataSource>;
  temporal: Part<O, 'temporal', TemporalDevServer>;
  config: Part<O, 'env', Config>;
  worker: Part<O, 'worker', RunningWorker>;
  api: Part<O, 'api', RunningApi>;
};

/**
 * Starts, in order, whichever of PostgreSQL, the migrated database, the Temporal dev server, the
 * worker and the API the options ask for. A failure part-way runs `stops.stopAll()`, so nothing
 * started here (nor anything the caller registered before) outlives it.
 */
export async function startStack<O extends StackOptions>(opts: O): Promise<Stack<O>> {
  try {
    return (await start(opts)) as Stack<O>;
  } catch (err) {
    await opts.stops.stopAll();
    throw err;
  }
}

async function start(opts: StackOptions) {
  const { log, stops, signal } = opts;
  const register = (label: string, stop: Stop) => {
    stops.push(labelled(label, stop));
    signal?.throwIfAborted();
  };

  const postgres = opts.postgres && (await startEmbeddedPostgres({ ...opts.postgres, log }));
  if (postgres) register('PostgreSQL', postgres.stop);
  // Picked now so the services' configuration is whole, and checked, before anything is migrated.
  const temporalPort = opts.temporal && (opts.temporal.port ?? (await freePort()));
  const env = { ...opts.env };
  if (postgres) env.DATABASE_URL = postgres.url;
  if (temporalPort) env.TEMPORAL_ADDRESS = `127.0.0.1:${temporalPort}`;
  const config = opts.env && loadConfig(env);

  let db: DataSource | undefined;
  if (opts.database) {
    const url = opts.database.url ?? postgres?.url ?? config?.databaseUrl;
    if (!url) throw new Error('startStack: `database` needs `postgres`, a `url` or `env`');
    const pool = await openDatabase(url, {
      migrate: true,
      poolSize: opts.database.poolSize ?? config?.dbPoolSize,
      timeouts: config?.db,
    });
    db = pool;
    // A test may have closed it already, as a crash would.
    register('the database pool', async () => {
      if (pool.isInitialized) await pool.destroy();
    });
  }

  const temporal =
    opts.temporal && (await startTemporalDevServer({ ...opts.temporal, port: temporalPort, log }));
  if (temporal) register('the Temporal dev server', temporal.stop);

  let worker: RunningWorker | undefined;
  let api: RunningApi | undefined;
  if (opts.worker || opts.api) {
    if (!db || !config) throw new Error('startStack: the worker and the API need `database` and `env`');
    // Loaded only when asked for, so a database-only stack (test helpers, benches) skips loading the
    // Temporal worker and Koa; import() is ESM's and so wants the .js extension.
    // One process, one trace exporter: named for the dev stack before the worker or the API names it.
    if (opts.worker && opts.api)
      await (await import('../infra/tracing.js')).startTracing(config.tracing, 'dev');
    if (opts.worker) {
      const { runWorker } = await import('../worker/run.js');
      const running = await runWorker(config, db, createLogger('worker', config.logLevel));
      register('the worker', running.shutdown);
      worker = running;
    }
    if (opts.api) {
      const { listenApi } = await import('../api/listen.js');
      const listening = await listenApi(config, db, createLogger('api', config.logLevel));
      register('the API', listening.close);
      api = listening;
    }
  }
  return { postgres, db, temporal, config, worker, api };
}
