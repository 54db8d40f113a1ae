import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { createWorkspace } from '../../domain/identity/operations/workspaces';
import { createEndpoint } from '../../domain/webhooks/operations/endpoints';
import { generateSigningSecret } from '../../domain/webhooks/secrets';
import { noCanceller } from '../../domain/webhooks/workflow-ids';
import type { Logger } from '../../infra/logger';
import type { Stops } from '../../tooling/cleanup';
import { repoRoot } from '../../tooling/paths';
import { startStack } from '../../tooling/stack';
import type { TemporalDevServer } from '../../tooling/temporal-server';
import { asBenchOperator, openBenchDatabase } from './bench-database';
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
  const { temporal } = await startStack({
    log,
    stops,
    temporal: { dbFile: temporalDbFile(), headless: true },
  });

  const receiver = await startReceiver();
  stops.push(receiver.close);
  const secretsKey = randomBytes(32);
  const endpoint = async (name: string, receiverPath: ReceiverPath) => {
    // Nothing is disabled or deleted here, so there is no workflow to cancel.
    const services = {
      db,
      webhooks: { secretsKey, allowPrivateTargets: true, cancelWorkflows: noCanceller },
    };
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
