import { fork } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Committed } from './outbox-load';

/** What the parent asks of the writer process. */
export type BurstOrder = { databaseUrl: string; workspaceId: string; events: number; concurrency: number };
/** Each commit with its times as absolute milliseconds (the writer's performance timeline differs). */
export type BurstResult = { id: string; committedAbs: number; committedWall: number }[];

/**
 * Commits `events` events for one workspace in a process of its own, as fast as `concurrency`
 * connections go. A burst committed in the bench's own process would share the event loop of the
 * receiver, which then timestamps every receipt late by however far that loop lags behind: the
 * receiver would be measuring the load generator, not the service.
 */
export function commitBurstElsewhere(order: BurstOrder): Promise<Committed[]> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'burst-writer-process.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let done = false;
    child.once('message', (result: BurstResult) => {
      done = true;
      child.kill();
      resolve(
        result.map((c) => ({
          id: c.id,
          committedAt: c.committedAbs - performance.timeOrigin,
          committedWall: c.committedWall,
        })),
      );
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (!done) reject(new Error(`the burst writer exited with ${code} before it reported`));
    });
    child.send(order);
  });
}
