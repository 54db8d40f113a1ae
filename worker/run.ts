import type { DataSource } from 'typeorm';
import type { Config } from '../infra/config';
import type { Logger } from '../infra/logger';
import { connectWorker, createWorker } from './worker';

export type RunningWorker = { shutdown: () => Promise<void>; done: Promise<void> };

/** Connects to Temporal and runs the worker until `shutdown`, which drains in-flight tasks. */
export async function runWorker(config: Config, db: DataSource, log: Logger): Promise<RunningWorker> {
  const connection = await connectWorker(config.temporalAddress);
  const worker = await createWorker({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.temporalTaskQueue,
    db,
  });
  const done = worker.run().finally(() => connection.close());
  done.catch((err: unknown) => log.error('worker stopped with an error', { error: String(err) }));
  log.info('worker running', { task_queue: config.temporalTaskQueue, namespace: config.temporalNamespace });
  return {
    done,
    shutdown: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done.catch(() => undefined);
    },
  };
}
