import { NativeConnection, Worker } from '@temporalio/worker';
import type { Activities } from '../activities';
import { installWorkerLogging } from './logging';

export type WorkerOptions = {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: Partial<Activities>;
};

/** The worker's connection; SDK logging is set up first, since the runtime starts with the first connection. */
export async function connectWorker(address: string): Promise<NativeConnection> {
  installWorkerLogging();
  return NativeConnection.connect({ address });
}

/** The worker that runs every workflow and activity of the service. */
export async function createWorker({
  connection,
  namespace,
  taskQueue,
  activities,
}: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    workflowsPath: require.resolve('../workflows'),
    activities,
    // Parked workflows (retry sleeps, approvals) need no cache; size it for work in flight.
    maxCachedWorkflows: 100,
  });
}
