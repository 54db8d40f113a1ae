import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../infra/logger';
import {
  ensureGoBinary,
  TEMPORAL_SERVER,
  TEMPORAL_SQL_TOOL,
  TEMPORAL_UI_SERVER,
  TEMPORAL_SERVER_VERSION,
} from './go-binaries';
import { ensureOwnedDatabases } from './postgres';
import { freePort, spawnServer, stopChild, waitFor } from './processes';
import { repoRoot } from './paths';
import { ensureTemporalBinaries } from './temporal-bin';
import { namespaceAnswers } from './temporal-server';

/** The real Temporal server (history, matching, frontend and worker services in one process) on PostgreSQL. */
export type TemporalCluster = {
  address: string;
  namespace: string;
  uiUrl?: string;
  /** The server's Prometheus page. */
  metricsUrl: string;
  historyShards: number;
  /** The server process alone, for faults: stopped and started again on the same ports and data. */
  server: {
    pid: () => number | undefined;
    stop: (signal?: NodeJS.Signals) => Promise<void>;
    start: () => Promise<void>;
  };
  stop: () => Promise<void>;
};

export type TemporalClusterOptions = {
  log: Logger;
  /** A PostgreSQL superuser's URL: the `temporal` role and its two databases are made there when missing. */
  postgresUrl: string;
  /** The temporal role's password, set when the role is made. */
  temporalPassword: string;
  /** Fixed when the cluster's database is created; another count on an existing one is refused. */
  historyShards: number;
  /** Where the server and UI write their logs. */
  logDir: string;
  port?: number;
  uiPort?: number;
  /**
   * The port the server reaches PostgreSQL on, when not the URL's: a proxy's in front of it (the chaos
   * suite's overload gives that link a network's latency). Its schema is set up directly.
   */
  storePort?: number;
  /** Without the Web UI (tests, benches). */
  headless?: boolean;
  namespace?: string;
};

const deployScript = (name: string) => path.join(repoRoot(), 'deploy', 'temporal', name);

/**
 * Compose's dynamic configuration (deploy/temporal/dynamicconfig/production-sql.yaml), written into `dir`
 * with one difference: a worker version no longer current counts as drained within about 20 seconds of
 * its last pinned run ending, instead of Temporal's 3 to 6 minutes. The server's grace period covers
 * visibility's lag, which on one machine is milliseconds; a rollout (`npm run cluster -- roll`) then
 * stops the older workers while one watches, and the cluster test's rollout fits in CI.
 */
function oneMachineDynamicConfig(dir: string): string {
  const production = readFileSync(
    path.join(repoRoot(), 'deploy', 'temporal', 'dynamicconfig', 'production-sql.yaml'),
    'utf8',
  );
  const file = path.join(dir, 'temporal-dynamicconfig.yaml');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    file,
    `${production.trimEnd()}\n` +
      '# One machine (tooling/temporal-cluster.ts): versions drain in seconds, not minutes.\n' +
      'matching.wv.VersionDrainageStatusVisibilityGracePeriod:\n  - value: 15s\n    constraints: {}\n' +
      'matching.wv.VersionDrainageStatusRefreshInterval:\n  - value: 5s\n    constraints: {}\n',
  );
  return file;
}

/**
 * Starts the production engine on this machine from its real parts, as docker-compose does: the
 * databases, their schema by deploy/temporal/setup-schema.sh with the server's own SQL tool, the
 * server from its built-in configuration template driven by compose's environment variables, the
 * namespace and search attributes by deploy/temporal/create-namespace.sh, then the Web UI.
 */
export async function startTemporalCluster(opts: TemporalClusterOptions): Promise<TemporalCluster> {
  const { log } = opts;
  const namespace = opts.namespace ?? 'default';
  const [serverBin, sqlTool, uiServer] = await Promise.all([
    ensureGoBinary(TEMPORAL_SERVER, log),
    ensureGoBinary(TEMPORAL_SQL_TOOL, log),
    opts.headless ? undefined : ensureGoBinary(TEMPORAL_UI_SERVER, log),
  ]);
  const { cli } = ensureTemporalBinaries(log);
  const db = new URL(opts.postgresUrl);
  await ensureOwnedDatabases(opts.postgresUrl, 'temporal', opts.temporalPassword, [
    'temporal',
    'temporal_visibility',
  ]);
  await refuseOtherShardCount(opts.postgresUrl, opts.historyShards);

  const pathWith = (...bins: string[]) => [...bins.map((b) => path.dirname(b)), process.env.PATH].join(':');
  const dbEnv = {
    DB: 'postgres12',
    DB_PORT: db.port,
    POSTGRES_SEEDS: db.hostname,
    POSTGRES_USER: 'temporal',
    POSTGRES_PWD: opts.temporalPassword,
  };
  await runScript('setup-schema.sh', {
    ...dbEnv,
    SQL_PASSWORD: opts.temporalPassword,
    PATH: pathWith(sqlTool),
  });

  const port = opts.port ?? (await freePort());
  const ports = await freePorts(10);
  const serverEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...dbEnv,
    DB_PORT: String(opts.storePort ?? db.port),
    NUM_HISTORY_SHARDS: String(opts.historyShards),
    DYNAMIC_CONFIG_FILE_PATH: oneMachineDynamicConfig(path.dirname(opts.logDir)),
    BIND_ON_IP: '127.0.0.1',
    LOG_LEVEL: process.env.TEMPORAL_LOG_LEVEL ?? 'warn',
    FRONTEND_GRPC_PORT: String(port),
    FRONTEND_HTTP_PORT: String(ports[0]),
    FRONTEND_MEMBERSHIP_PORT: String(ports[1]),
    HISTORY_GRPC_PORT: String(ports[2]),
    HISTORY_MEMBERSHIP_PORT: String(ports[3]),
    MATCHING_GRPC_PORT: String(ports[4]),
    MATCHING_MEMBERSHIP_PORT: String(ports[5]),
    WORKER_GRPC_PORT: String(ports[6]),
    WORKER_MEMBERSHIP_PORT: String(ports[7]),
    PROMETHEUS_ENDPOINT: `127.0.0.1:${ports[8]}`,
  };
  const address = `127.0.0.1:${port}`;
  mkdirSync(opts.logDir, { recursive: true });
  let child: ReturnType<typeof spawnServer> | undefined;
  const startServer = async () => {
    const out = openSync(path.join(opts.logDir, 'temporal-server.log'), 'a');
    const started = spawnServer(serverBin, ['--allow-no-auth', 'start'], { env: serverEnv, stdout: out });
    closeSync(out);
    child = started;
    let stderr = '';
    started.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const exited = new Promise<never>((_, reject) =>
      started.once('exit', (code) =>
        reject(
          new Error(
            `temporal-server exited (${code}) during start-up: ${stderr.trim() || `see ${opts.logDir}/temporal-server.log`}`,
          ),
        ),
      ),
    );
    exited.catch(() => undefined);
    await Promise.race([
      exited,
      waitFor('the Temporal server', () => namespaceAnswers(address, 'temporal-system'), 120_000, 250),
    ]);
  };
  await startServer();
  await runScript('create-namespace.sh', {
    TEMPORAL_ADDRESS: address,
    DEFAULT_NAMESPACE: namespace,
    DEFAULT_NAMESPACE_RETENTION: '24h',
    PATH: pathWith(cli),
  });

  let ui: ReturnType<typeof spawnServer> | undefined;
  let uiUrl: string | undefined;
  if (uiServer) {
    const uiPort = opts.uiPort ?? (await freePort());
    uiUrl = `http://127.0.0.1:${uiPort}`;
    const out = openSync(path.join(opts.logDir, 'temporal-ui.log'), 'a');
    ui = spawnServer(uiServer, ['--root', path.dirname(uiServer), '--env', 'docker', 'start'], {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: address,
        TEMPORAL_UI_PORT: String(uiPort),
        TEMPORAL_DEFAULT_NAMESPACE: namespace,
        TEMPORAL_CORS_ORIGINS: uiUrl,
      },
      stdout: out,
    });
    closeSync(out);
    await waitFor('the Temporal Web UI', async () => (await fetch(uiUrl!)).ok, 30_000, 200);
  }
  log.info('Temporal server running', {
    version: TEMPORAL_SERVER_VERSION,
    frontend: address,
    history_shards: opts.historyShards,
  });
  return {
    address,
    namespace,
    uiUrl,
    metricsUrl: `http://127.0.0.1:${ports[8]}/metrics`,
    historyShards: opts.historyShards,
    server: {
      pid: () => child?.pid,
      stop: async (signal = 'SIGTERM') => {
        if (child) await stopChild(child, signal, 30_000);
      },
      start: startServer,
    },
    stop: async () => {
      if (ui) await stopChild(ui);
      if (child) await stopChild(child, 'SIGTERM', 30_000);
    },
  };
}

/**
 * Free ports below 32768: the server records its membership ports in a PostgreSQL smallint, and the
 * system hands out ephemeral ports above it. A random start keeps two clusters starting together apart.
 */
async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let port = 10_000 + Math.floor(Math.random() * 20_000); ports.length < count; port++)
    if ((await freePort(port)) === port) ports.push(port);
  return ports;
}

/**
 * Runs one of compose's scripts to its end. Not `spawnSync`: the caller's event loop keeps running, and
 * a proxy in this process between the server and its database (the chaos suite's) must keep passing
 * the server's statements while the script waits on the server.
 */
async function runScript(name: string, env: Record<string, string | undefined>) {
  const child = spawn('sh', [deployScript(name)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (d: Buffer) => (output = (output + d.toString()).slice(-8000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  if (code !== 0) throw new Error(`deploy/temporal/${name} failed (${code ?? signal}):\n${output.trim()}`);
}

/**
 * The server keeps the shard count the cluster was created with and silently ignores another in its
 * configuration; a count that differs from the one asked for is refused here, saying so.
 */
async function refuseOtherShardCount(url: string, wanted: number) {
  const u = new URL(url);
  u.pathname = '/temporal';
  const client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  try {
    const table = await client.query(`SELECT to_regclass('cluster_metadata_info') AS t`);
    if (!(table.rows[0] as { t: string | null }).t) return;
    const { rows } = await client.query<{ data: Buffer }>(
      `SELECT data FROM cluster_metadata_info WHERE metadata_partition = 0 LIMIT 1`,
    );
    const existing = rows[0] && historyShardCount(rows[0].data);
    if (existing !== undefined && existing !== wanted)
      throw new Error(
        `This Temporal database was created with ${existing} history shards, and TEMPORAL_HISTORY_SHARDS asks for ` +
          `${wanted}. A cluster's shard count is fixed when its database is created: set ` +
          `TEMPORAL_HISTORY_SHARDS=${existing}, or start from an empty database (its workflows are lost).`,
      );
  } finally {
    await client.end();
  }
}

/** Field 2 (`history_shard_count`, a varint) of the persisted ClusterMetadata message. */
export function historyShardCount(message: Buffer): number | undefined {
  let at = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 0; at < message.length; shift += 7) {
      const byte = message[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    throw new Error('truncated varint in ClusterMetadata');
  };
  while (at < message.length) {
    const key = varint();
    const [field, wire] = [Math.floor(key / 8), key % 8];
    if (field === 2 && wire === 0) return varint();
    if (wire === 0) varint();
    else if (wire === 1) at += 8;
    else if (wire === 2) {
      const length = varint();
      at += length;
    } else if (wire === 5) at += 4;
    else throw new Error(`unexpected wire type ${wire} in ClusterMetadata`);
  }
  return undefined;
}
