import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import postgresDriver from 'pg';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../../domain/data-source';
import { operatorActor } from '../../domain/kernel/actor';
import { runOperation } from '../../domain/kernel/runner';
import { createEndpoint } from '../../domain/webhooks/operations/endpoint-create';
import { noCanceller } from '../../tooling/services';
import type { Logger } from '../../infra/logger';
import type { Stops } from '../../tooling/cleanup';
import { makeWorkspace } from '../../tooling/fixtures';
import { repoRoot } from '../../tooling/paths';
import { startSmtpSink, type SmtpSink } from '../../tooling/smtp-sink';
import { recreateDatabase, startEmbeddedPostgres } from '../../tooling/postgres';
import { freePort } from '../../tooling/processes';
import { startTemporalCluster } from '../../tooling/temporal-cluster';
import type { Child } from './children';
import { MAIL_FROM } from './outbound';
import { MATRIX_CASES, type MatrixCase } from './matrix-cases';
import { PostgresControl } from './postgres-control';
import { startRawReceiver } from './raw-receiver';
import { OVERLOAD_PATH, startReceiver, type Receiver } from './receiver';
import { serviceLaunchers } from './services';
import { Supervised } from './supervised';
import { clusterControl, TemporalControl, type EngineControl } from './temporal-control';
import type { Timeline } from './timeline';
import { startTlsReceiver } from './tls-receiver';
import { testServices } from '../../tooling/services';
import { startTcpProxy, type TcpProxy } from '../../tooling/tcp-proxy';

export type MatrixEndpoint = MatrixCase & { workspaceId: string; endpointId: string; apiKey: string };

/**
 * The overload fault's events (`--cluster`): a type nothing else in the run emits, to endpoints of the
 * main workspace of their own, so each event is as many deliveries and the relay starts up to its cap
 * (25 per endpoint) for each: one endpoint's share alone does not saturate four shards.
 */
export const OVERLOAD_EVENT_TYPE = 'campaign.paused';
const OVERLOAD_ENDPOINTS = 6;

export type ChaosStack = {
  dir: string;
  db: DataSource;
  pg: PostgresControl;
  temporal: EngineControl;
  /** The harness's own Temporal client: it describes delivery workflows. */
  client: Client;
  api: Supervised;
  worker: Supervised;
  /** `--cluster`: the second API and worker, on the same database, engine and task queue. */
  second?: { api: Supervised; worker: Supervised };
  /** Each worker's Prometheus page and log file (the first's, then the second's). */
  workers: { metricsUrl: string; log: string }[];
  /** Where the load goes: the API, or both APIs in turn. */
  apiUrls: string[];
  taskQueue: string;
  receiver: Receiver;
  /** The SMTP server every outbound email goes to; it counts arrivals by Message-ID. */
  smtp: SmtpSink;
  tls: Awaited<ReturnType<typeof startTlsReceiver>>;
  main: { workspaceId: string; endpointId: string; apiKey: string };
  /** `--cluster`: the overload fault's endpoints in the main workspace (`OVERLOAD_EVENT_TYPE`), by path. */
  overloadPaths: string[];
  /**
   * `--cluster`: the link the Temporal server reaches PostgreSQL over, loopback until the overload fault
   * gives it a network's latency.
   */
  storeLink?: TcpProxy;
  matrix: MatrixEndpoint[];
  /** Events up to this one were made during set-up. */
  baseSeq: number;
  /** A worker process that is not waited for (a crash hook is armed in `extraEnv`). */
  spawnWorker: (extraEnv: Record<string, string>) => Child;
};

const DATABASE = 'chaos';
const CLUSTER_MAX_CONNECTIONS = '300';
const operator = operatorActor({ door: 'admin', requestId: 'chaos' });

/**
 * Everything fresh in `.data/chaos`: PostgreSQL (the database recreated), Temporal on a new SQLite
 * file, the receivers, one workspace for the steady load and one per receiver fault, then the API
 * and the worker as processes of their own. Every part registers its stop.
 */
export async function startChaosStack(
  log: Logger,
  stops: Stops,
  timeline: Timeline,
  cluster = false,
): Promise<ChaosStack> {
  const dir = path.join(repoRoot(), '.data', 'chaos');
  const logDir = path.join(dir, 'logs');
  rmSync(logDir, { recursive: true, force: true });
  rmSync(path.join(dir, 'temporal'), { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });

  log.info('starting PostgreSQL');
  const pgDir = path.join(dir, 'pg');
  // On the cluster, Temporal's four services keep pools to its two databases beside the APIs' and the
  // workers': PostgreSQL's default of 100 connections refused some under the overload fault, as the
  // bench found (bench/lib/webhook-stack.ts), and the fault is the engine's, not the connection limit's.
  const settings = cluster ? { max_connections: CLUSTER_MAX_CONNECTIONS } : undefined;
  const first = await startEmbeddedPostgres({ dataDir: pgDir, database: DATABASE, log, settings });
  const pg = new PostgresControl(first, pgDir, DATABASE, log, settings);
  stops.push(() => pg.stop());
  await recreateDatabase(pg.url, DATABASE);
  // The harness's own pool, with timeouts, so no check of it hangs on a frozen server.
  const db = await openDatabase(pg.url, {
    migrate: true,
    poolSize: 6,
    timeouts: { connectTimeoutMs: 3_000, statementTimeoutMs: 10_000, idleInTransactionTimeoutMs: 10_000 },
  });
  stops.push(async () => {
    if (db.isInitialized) await db.destroy();
  });

  const storeLink = cluster ? await startTcpProxy(`127.0.0.1:${new URL(pg.url).port}`) : undefined;
  if (storeLink) stops.push(storeLink.close);
  const temporal = storeLink
    ? await startCluster(pg.url, storeLink.port, logDir, log, stops)
    : await startDevServer(dir, log, stops);
  const connection = await Connection.connect({ address: temporal.address });
  stops.push(() => connection.close());
  const client = new Client({ connection });

  const receiver = await startReceiver();
  const raw = await startRawReceiver(receiver.hits);
  const tls = await startTlsReceiver(receiver.hits);
  stops.push(receiver.close, raw.close, tls.close);
  const smtp = await startSmtpSink();
  stops.push(smtp.stop);

  const secretsKey = randomBytes(32);
  const services = testServices(db, {
    webhooks: { secretsKey, allowPrivateTargets: true, cancelWorkflows: noCanceller },
  });
  const workspace = async (name: string, url: string) => {
    const w = await makeWorkspace(db, {
      name,
      email: `chaos.${randomUUID().slice(0, 8)}@example.com`,
      scopes: ['leads:read', 'leads:write'],
    });
    const e = await runOperation(
      services,
      createEndpoint,
      operator,
      { url, events: ['lead.created'] },
      {
        workspaceId: w.workspace.id,
      },
    );
    return { workspaceId: w.workspace.id, endpointId: e.id, apiKey: w.key.key, secret: e.secret };
  };
  const mainWs = await workspace('Chaos steady load', receiver.url('/main'));
  receiver.setMainSecret(mainWs.secret);
  const overloadPaths = cluster
    ? Array.from({ length: OVERLOAD_ENDPOINTS }, (_, i) => `${OVERLOAD_PATH}${i + 1}`)
    : [];
  for (const path of overloadPaths) {
    const e = await runOperation(
      services,
      createEndpoint,
      operator,
      { url: receiver.url(path), events: [OVERLOAD_EVENT_TYPE] },
      { workspaceId: mainWs.workspaceId },
    );
    receiver.setOverloadSecret(path, e.secret);
  }
  const matrix: MatrixEndpoint[] = [];
  for (const c of MATRIX_CASES) {
    const url = c.on === 'raw' ? raw.url(c.path) : c.on === 'tls' ? tls.url(c.path) : receiver.url(c.path);
    const w = await workspace(`Chaos receiver fault: ${c.name}`, url);
    receiver.hits.setSecret(c.path, w.secret);
    matrix.push({ ...c, workspaceId: w.workspaceId, endpointId: w.endpointId, apiKey: w.apiKey });
  }
  const [{ seq }] = await db.query<[{ seq: string | null }]>('SELECT max(seq)::text AS seq FROM events');

  const taskQueue = `chaos-${randomUUID().slice(0, 8)}`;
  const processes = async (instance?: number) => {
    const launchers = serviceLaunchers({
      databaseUrl: pg.url,
      temporalAddress: temporal.address,
      taskQueue,
      secretsKey,
      apiPort: await freePort(),
      workerMetricsPort: await freePort(),
      logDir,
      instance,
      smtpUrl: smtp.url,
      mailFrom: MAIL_FROM,
    });
    const suffix = instance ? ` ${instance}` : '';
    const api = new Supervised(`api${suffix}`, launchers.launchApi, log, timeline);
    // A worker that dies by itself may die between a POST and its record, like a kill.
    const worker = new Supervised(`worker${suffix}`, launchers.launchWorker, log, timeline, () =>
      timeline.open('worker_exit'),
    );
    log.info(`starting the API${suffix} and the worker${suffix}`);
    await api.start();
    stops.push(() => api.close());
    await worker.start();
    stops.push(() => worker.close());
    return { ...launchers, api, worker };
  };
  const one = await processes(cluster ? 1 : undefined);
  const { apiUrl, api, worker, spawnWorker } = one;
  const second = cluster ? await processes(2) : undefined;

  return {
    dir,
    db,
    pg,
    temporal,
    client,
    api,
    worker,
    second: second && { api: second.api, worker: second.worker },
    workers: [one, ...(second ? [second] : [])].map((p) => ({
      metricsUrl: p.workerMetricsUrl,
      log: p.workerLog,
    })),
    apiUrls: second ? [apiUrl, second.apiUrl] : [apiUrl],
    taskQueue,
    receiver,
    smtp,
    tls,
    main: { workspaceId: mainWs.workspaceId, endpointId: mainWs.endpointId, apiKey: mainWs.apiKey },
    overloadPaths,
    storeLink,
    matrix,
    baseSeq: Number(seq ?? 0),
    spawnWorker,
  };
}

async function startDevServer(dir: string, log: Logger, stops: Stops): Promise<EngineControl> {
  log.info('starting the Temporal dev server (SQLite file, so it can be restarted)');
  const temporal = await TemporalControl.start(
    log,
    await freePort(),
    path.join(dir, 'temporal', 'temporal.db'),
  );
  stops.push(() => temporal.stop());
  return temporal;
}

/**
 * The real Temporal server on the chaos PostgreSQL, beside the service's database as in production;
 * its databases are made afresh, as the service's is, so no workflow of an earlier run is there.
 */
async function startCluster(
  adminUrl: string,
  storePort: number,
  logDir: string,
  log: Logger,
  stops: Stops,
): Promise<EngineControl> {
  log.info('starting the Temporal server on the same PostgreSQL (fresh databases)');
  const client = new postgresDriver.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    for (const db of ['temporal', 'temporal_visibility'])
      await client.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  } finally {
    await client.end();
  }
  const cluster = await startTemporalCluster({
    log,
    postgresUrl: adminUrl,
    temporalPassword: randomBytes(18).toString('base64url'),
    historyShards: 4,
    storePort,
    logDir,
    headless: true,
  });
  stops.push(() => cluster.stop());
  return clusterControl(cluster);
}
