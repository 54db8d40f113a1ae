import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { Logger } from '../infra/logger';
import { freePort, spawnServer, stopChild, waitFor } from './processes';
import { SEARCH_ATTRIBUTE_PAIRS } from '../domain/kernel/search-attributes';
import { ensureTemporalBinaries } from './temporal-bin';

export type TemporalDevServer = {
  address: string;
  uiUrl?: string;
  /** Its Prometheus page, when asked for with `metricsPort`. */
  metricsUrl?: string;
  pid: number;
  stop: () => Promise<void>;
};

export type TemporalDevServerOptions = {
  log: Logger;
  /** SQLite file that keeps workflows across restarts; in memory when absent. */
  dbFile?: string;
  port?: number;
  uiPort?: number;
  /** Without the Web UI (tests). */
  headless?: boolean;
  /** Without the service's search attributes, as a fresh production namespace is (the engine-check test). */
  bare?: boolean;
  /**
   * The port of its Prometheus page (`/metrics`), returned as `metricsUrl`: the same series as the real
   * server's (`service_requests` by operation, say). Without it the page is on a port of its choosing.
   */
  metricsPort?: number;
};

/**
 * Starts `temporal server start-dev`. WAL mode with normal sync cuts fsyncs per workflow from dozens
 * to about one (see perf-notes): still crash-safe for a dev server, and much faster.
 */
export async function startTemporalDevServer(opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const { cli } = ensureTemporalBinaries(opts.log);
  const port = opts.port ?? (await freePort());
  const uiPort = opts.headless ? undefined : (opts.uiPort ?? (await freePort()));
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--namespace', 'default'];
  args.push(
    '--log-level',
    'error',
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=normal',
    // Task-queue fairness (off by default up to 1.32): each workspace's tasks are served in turn.
    '--dynamic-config-value',
    'matching.enableFairness=true',
    // Each test's worker is a Worker Deployment of its own (named after its task queue): a run of the
    // suite makes more than the 100 a namespace may have by default.
    '--dynamic-config-value',
    'matching.maxDeployments=10000',
  );
  if (opts.metricsPort !== undefined) args.push('--metrics-port', String(opts.metricsPort));
  if (!opts.bare) for (const sa of SEARCH_ATTRIBUTE_PAIRS) args.push('--search-attribute', sa);
  if (opts.dbFile) {
    mkdirSync(path.dirname(opts.dbFile), { recursive: true });
    args.push('--db-filename', opts.dbFile);
  }
  args.push(...(uiPort ? ['--ui-port', String(uiPort)] : ['--headless']));
  const child = spawnServer(cli, args);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) =>
      reject(new Error(`temporal server exited (${code}) during start-up: ${stderr}`)),
    ),
  );
  const address = `127.0.0.1:${port}`;
  await Promise.race([
    exited,
    waitFor('the Temporal dev server', () => namespaceAnswers(address, 'default'), 60_000, 200),
  ]);
  exited.catch(() => undefined);
  return {
    address,
    uiUrl: uiPort ? `http://127.0.0.1:${uiPort}` : undefined,
    metricsUrl: opts.metricsPort !== undefined ? `http://127.0.0.1:${opts.metricsPort}/metrics` : undefined,
    pid: child.pid!,
    stop: () => stopChild(child, 'SIGTERM'),
  };
}

/** The server at `address` answers for `namespace` (and so its history and matching are up behind it). */
export async function namespaceAnswers(address: string, namespace: string): Promise<boolean> {
  const conn = await Connection.connect({ address, connectTimeout: 1000 });
  try {
    await conn.workflowService.describeNamespace({ namespace });
    return true;
  } finally {
    await conn.close();
  }
}
