import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { createWorkspace } from '../../domain/operations/create-workspace';
import { createEndpoint } from '../../domain/operations/webhook-endpoints';
import { generateSigningSecret } from '../../domain/webhooks/secrets';
import { noCanceller } from '../../domain/webhooks/workflow-ids';
import type { Logger } from '../../infra/logger';
import { repoRoot } from '../../infra/paths';
import { startTemporalDevServer, type TemporalDevServer } from '../../infra/temporal-server';
import { benchOperator, openBenchDatabase, operator } from './bench-database';
import type { Stops } from './cleanup';
import { EVENT_TYPE } from './outbox-load';
import { startReceiver, type Receiver, type ReceiverPath } from './webhook-receiver';
import { startWorkerProcess, type WorkerProcess } from './worker-process';

const benchDir = () => path.join(repoRoot(), '.data', 'bench', 'webhooks');
export const temporalDbFile = () => path.join(benchDir(), 'temporal', 'temporal.db');

export type WebhookStack = {
  db: DataSource;
  temporal: TemporalDevServer;
  worker: WorkerProcess;
  receiver: Receiver;
  /** Its endpoint answers 204. */
  okWorkspace: string;
  /** Its endpoint answers 503: a workspace of its own, or every event would fan out to both. */
  failWorkspace: string;
  baselineSecret: string;
};

// Fifty committers, plus a few for the bench's own reads.
const POOL_SIZE = 56;

/**
 * Everything the path needs, fresh each run: PostgreSQL (the database recreated), the Temporal dev
 * server on a new SQLite file (as the dev stack runs it, so its memory and file size are real), the
 * receiver, two workspaces with one endpoint each, and the worker process on a task queue of its own.
 */
export async function startWebhookStack(log: Logger, stops: Stops): Promise<WebhookStack> {
  log.info('starting PostgreSQL (fresh database)');
  const { pg, db } = await openBenchDatabase(log, stops, {
    dataDir: path.join(benchDir(), 'pg'),
    poolSize: POOL_SIZE,
    fresh: true,
  });

  log.info('starting the Temporal dev server on a fresh SQLite file');
  for (const suffix of ['', '-wal', '-shm']) rmSync(temporalDbFile() + suffix, { force: true });
  const temporal = await startTemporalDevServer({ log, dbFile: temporalDbFile(), headless: true });
  stops.push(temporal.stop);

  const receiver = await startReceiver();
  stops.push(receiver.close);
  const secretsKey = randomBytes(32);
  const endpoint = async (name: string, receiverPath: ReceiverPath) => {
    const workspace = await createWorkspace(db, operator, {
      name,
      timezone: 'Europe/London',
      industry: 'bench',
    });
    const e = await createEndpoint(
      db,
      benchOperator,
      { workspaceId: workspace.id, url: receiver.url(receiverPath), events: [EVENT_TYPE] },
      // Nothing is disabled or deleted here, so there is no workflow to cancel.
      { secretsKey, allowPrivateTargets: true, cancelWorkflows: noCanceller },
    );
    receiver.setSecret(receiverPath, e.secret);
    return workspace.id;
  };
  const okWorkspace = await endpoint('Bench webhooks', 'ok');
  const failWorkspace = await endpoint('Bench webhooks (receiver down)', 'fail');
  const baselineSecret = generateSigningSecret();
  receiver.setSecret('baseline', baselineSecret);

  log.info('starting the worker process (bundling workflows takes a while)');
  const worker = await startWorkerProcess({
    databaseUrl: pg.url,
    temporalAddress: temporal.address,
    taskQueue: `bench-webhooks-${randomUUID().slice(0, 8)}`,
    secretsKey,
  });
  stops.push(worker.stop);
  return { db, temporal, worker, receiver, okWorkspace, failWorkspace, baselineSecret };
}
