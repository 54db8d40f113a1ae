import { NativeConnection, Worker } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import { createActivities } from '../activities';
import { installWorkerLogging } from './logging';

export type WorkerOptions = {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  db?: DataSource;
};

/** The worker's connection; SDK logging is set up first, since the runtime starts with the first connection. */
export async function connectWorker(address: string): Promise<NativeConnection> {
  installWorkerLogging();
  return NativeConnection.connect({ address });
}

/** The worker that runs every workflow and activity of the service. */
export async function createWorker({ connection, namespace, taskQueue, db }: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    workflowsPath: require.resolve('../workflows'),
    activities: createActivities({ db, clock: () => new Date() }),
    // Parked workflows (retry sleeps, approvals) need no cache; size it for work in flight.
    maxCachedWorkflows: 100,
  });
}
