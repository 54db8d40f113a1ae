import { performance } from 'node:perf_hooks';
import { openDatabase } from '../../domain/data-source';
import type { BurstOrder, BurstResult } from './burst-writer';
import { commitEvent, numberEventsFrom } from './outbox-load';
import { withConcurrency } from './pacing';

/** The burst writer's process (bench/lib/burst-writer.ts): one order, one report, then it is killed. */
process.once('message', (order: BurstOrder) => {
  void (async () => {
    const db = await openDatabase(order.databaseUrl, { poolSize: order.concurrency });
    // Apart from the parent's numbers, so every lead keeps an email and phone of its own.
    numberEventsFrom(10_000_000);
    const commits = await withConcurrency(order.events, order.concurrency, () =>
      commitEvent(db, order.workspaceId),
    );
    await db.destroy();
    const result: BurstResult = commits.map((c) => ({
      id: c.id,
      committedAbs: performance.timeOrigin + c.committedAt,
      committedWall: c.committedWall,
    }));
    process.send!(result);
  })().catch((err: unknown) => {
    console.error('the burst writer failed:', err);
    process.exit(1);
  });
});
