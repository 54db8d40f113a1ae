import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { parse } from 'yaml';
import { createWorkspace } from '../../domain/identity/operations/workspace-create';
import { createEndpoint } from '../../domain/webhooks/operations/endpoint-create';
import { generateSigningSecret } from '../../domain/webhooks/secrets';
import { noCanceller } from '../../tooling/services';
import type { Logger } from '../../infra/logger';
import { labelled, type Stops } from '../../tooling/cleanup';
import { repoRoot } from '../../tooling/paths';
import { startStack } from '../../tooling/stack';
import { startTemporalCluster } from '../../tooling/temporal-cluster';
import { asBenchOperator, openBenchDatabase } from './bench-database';
import { statementSettings } from './pg-counters';
import { EVENT_TYPE } from './outbox-load';
import { openDatabaseMeter, type DatabaseMeter } from './pg-databases';
import { startReceiver, type Receiver, type ReceiverPath } from './webhook-receiver';
import { startWorkerProcess, type WorkerProcess, type WorkerSettings } from './worker-process';
import { testServices } from '../../tooling/services';

export const benchDir = () => path.join(repoRoot(), '.data', 'bench', 'webhooks');
export const temporalDbFile = () => path.join(benchDir(), 'temporal', 'temporal.db');

/** The history shards docker-compose.yml gives the Temporal server, read from it so the two cannot drift. */
export function deployedHistoryShards(): number {
  const compose = parse(readFileSync(path.join(repoRoot(), 'docker-compose.yml'), 'utf8'), {
    merge: true,
  }) as {
    services: { temporal: { environment: Record<string, string> } };
  };
  const shards = Number(compose.services.temporal.environment.NUM_HISTORY_SHARDS);
  if (!Number.isInteger(shards) || shards < 1)
    throw new Error('docker-compose.yml: temporal has no NUM_HISTORY_SHARDS');
  return shards;
}

/** `dev`: the Temporal dev server on SQLite (as `npm run dev`); `cluster`: the real server on PostgreSQL. */
export type Engine = 'dev' | 'cluster';

export type WebhookStack = {
  engine: Engine;
  db: DataSource;
  /** The database `db` opens, for a process of the bench's own (the noisy phase's burst writer). */
  databaseUrl: string;
  /** The postmaster (its CPU is its process tree's), and meters of the whole server by database. */
  postgres: { pid: number; meter: DatabaseMeter };
  temporal: { address: string; pid: number; metricsUrl?: string; historyShards?: number };
  /** The first worker process; `workers` holds it and any added since. */
  worker: WorkerProcess;
  workers: WorkerProcess[];
  /** Another worker process on the same task queue, with its own relay (as a second replica runs). */
  /** Another worker process on the same task queue (with more settings: tracing on, say). */
  addWorker: (env?: Record<string, string>) => Promise<WorkerProcess>;
  /** Stops a worker process and forgets it (its rows and workflows go on in the others). */
  removeWorker: (worker: WorkerProcess) => Promise<void>;
  receiver: Receiver;
  /** Its endpoint answers 204. */
  okWorkspace: string;
  /** Its endpoint answers 503: a workspace of its own, or every event would fan out to both. */
  failWorkspace: string;
  /** A third workspace whose endpoint answers 204: the neighbour a burst in `okWorkspace` must not starve. */
  quietWorkspace: string;
  baselineSecret: string;
};

// Fifty committers, plus a few for the bench's own reads.
const POOL_SIZE = 56;
// Temporal's four services each keep pools to its two databases (20 + 10 connections by default),
// beside the bench's pool and two workers'; PostgreSQL's default of 100 is too few for all of them.
const CLUSTER_MAX_CONNECTIONS = '300';

/**
 * Everything the path needs, fresh each run: PostgreSQL (the database recreated), Temporal, the
 * receiver, two workspaces with one endpoint each, and the worker process on a task queue of its own.
 * On `dev`, the Temporal dev server on a new SQLite file (as the dev stack runs it, so its memory and
 * file size are real). On `cluster`, a PostgreSQL of its own holding the service's database and
 * Temporal's two (as docker-compose deploys them), and the real Temporal server with
 * `historyShards`, its databases dropped and made again by `startTemporalCluster`. `firstWorker` adds
 * settings and Node flags to the first worker process (the profiled one of `--profile-worker`).
 */
export async function startWebhookStack(
  log: Logger,
  stops: Stops,
  engine: Engine = 'dev',
  historyShards = deployedHistoryShards(),
  firstWorker: Pick<WorkerSettings, 'env' | 'nodeFlags'> = {},
): Promise<WebhookStack> {
  log.info(`starting PostgreSQL (fresh database) for the ${engine} engine`);
  const { pg, db } = await openBenchDatabase(log, stops, {
    dataDir: path.join(benchDir(), engine === 'dev' ? 'pg' : 'cluster-pg'),
    poolSize: POOL_SIZE,
    fresh: true,
    settings: {
      ...(engine === 'cluster' && { max_connections: CLUSTER_MAX_CONNECTIONS }),
      ...statementSettings(),
    },
  });
  const meter = await openDatabaseMeter(pg.url);
  stops.push(meter.close);

  let temporal: WebhookStack['temporal'];
  if (engine === 'dev') {
    log.info('starting the Temporal dev server on a fresh SQLite file');
    for (const suffix of ['', '-wal', '-shm']) rmSync(temporalDbFile() + suffix, { force: true });
    const stack = await startStack({ log, stops, temporal: { dbFile: temporalDbFile(), headless: true } });
    temporal = stack.temporal;
  } else {
    log.info(`starting the Temporal server (${historyShards} history shards) on fresh databases`);
    await dropTemporalDatabases(pg.url);
    const cluster = await startTemporalCluster({
      log,
      postgresUrl: pg.url,
      temporalPassword: randomBytes(18).toString('base64url'),
      historyShards,
      logDir: path.join(benchDir(), 'cluster-logs'),
      headless: true,
    });
    stops.push(labelled('the Temporal server', cluster.stop));
    temporal = {
      address: cluster.address,
      pid: cluster.server.pid()!,
      metricsUrl: cluster.metricsUrl,
      historyShards,
    };
  }

  const receiver = await startReceiver();
  stops.push(receiver.close);
  const secretsKey = randomBytes(32);
  const endpoint = async (name: string, receiverPath: ReceiverPath) => {
    // Nothing is disabled or deleted here, so there is no workflow to cancel.
    const services = testServices(db, {
      webhooks: { secretsKey, allowPrivateTargets: true, cancelWorkflows: noCanceller },
    });
    const workspace = await asBenchOperator(services, createWorkspace, {
      name,
      timezone: 'Europe/London',
      industry: 'bench',
    });
    const e = await asBenchOperator(
      services,
      createEndpoint,
      { url: receiver.url(receiverPath), events: [EVENT_TYPE] },
      { workspaceId: workspace.id },
    );
    receiver.setSecret(receiverPath, e.secret);
    return workspace.id;
  };
  const okWorkspace = await endpoint('Bench webhooks', 'ok');
  const failWorkspace = await endpoint('Bench webhooks (receiver down)', 'fail');
  const quietWorkspace = await endpoint('Bench webhooks (quiet neighbour)', 'quiet');
  const baselineSecret = generateSigningSecret();
  receiver.setSecret('baseline', baselineSecret);

  const taskQueue = `bench-webhooks-${randomUUID().slice(0, 8)}`;
  const workers: WorkerProcess[] = [];
  const addWorker = async (env?: Record<string, string>, nodeFlags?: string[]) => {
    log.info(`starting worker process ${workers.length + 1} (bundling workflows takes a while)`);
    const worker = await startWorkerProcess({
      databaseUrl: pg.url,
      temporalAddress: temporal.address,
      taskQueue,
      secretsKey,
      ...(env && { env }),
      ...(nodeFlags && { nodeFlags }),
    });
    stops.push(worker.stop);
    workers.push(worker);
    return worker;
  };
  const removeWorker = async (worker: WorkerProcess) => {
    await worker.stop();
    workers.splice(workers.indexOf(worker), 1);
  };
  const worker = await addWorker(firstWorker.env, firstWorker.nodeFlags);
  return {
    engine,
    db,
    databaseUrl: pg.url,
    postgres: { pid: pg.pid, meter },
    temporal,
    worker,
    workers,
    addWorker,
    removeWorker,
    receiver,
    okWorkspace,
    failWorkspace,
    quietWorkspace,
    baselineSecret,
  };
}

/** A run starts from no workflows and no shard count: the last run's Temporal databases and role go. */
async function dropTemporalDatabases(url: string) {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    for (const name of ['temporal', 'temporal_visibility'])
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query('DROP ROLE IF EXISTS temporal');
  } finally {
    await client.end();
  }
}
