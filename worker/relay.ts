import type { Client } from '@temporalio/client';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { Data } from '../domain/kernel/data';
import { DELIVERIES_CHANNEL } from '../domain/kernel/events';
import { deliveryUpkeep, runKey } from '../domain/webhooks/repository/upkeep';
import type { Logger } from '../infra/logger';
import { deliveryStarter } from './start-delivery';

export type RelayOptions = {
  db: DataSource;
  databaseUrl: string;
  client: Client;
  taskQueue: string;
  log: Logger;
  batchSize?: number;
  /** Fallback poll when no notification arrives (a lost connection, a NOTIFY from another database). */
  pollMs?: number;
  /** Crash tests only: exit the process at this point of a pass, as a kill -9 would. */
  crashAt?: 'before-start' | 'before-mark';
};

const START_CONCURRENCY = 32;
/** After this, a delivery whose first attempt has not recorded is offered for a (refused) restart. */
const RECENTLY_STARTED_MS = 5 * 60_000;

/**
 * The outbox relay: starts a delivery workflow for every delivery that has none yet, with a
 * deterministic workflow id. The first attempt's record marks the row started (one write less per
 * delivery than a separate mark). A crash between commit and start only delays a delivery (the next
 * pass starts it); a start repeated after a crash is refused by Temporal (same id).
 * Woken by NOTIFY at commit, with a poll as a fallback.
 */
export function startRelay(opts: RelayOptions) {
  const { db, client, taskQueue, log } = opts;
  const batchSize = opts.batchSize ?? 200;
  let running = true;
  let wake: (() => void) | undefined;
  let dirty = true;
  let listener: pg.Client | undefined;

  const start = deliveryStarter(client, taskQueue);

  // Started by this relay, waiting for their first attempt to record (which marks the row started):
  // not started again meanwhile. Lost in a crash, which costs only a refused duplicate start.
  const recentlyStarted = new Map<string, number>();
  // Every workspace's deliveries.
  const deliveries = deliveryUpkeep(new Data(db.manager, undefined));

  const pass = async (): Promise<number> => {
    const now = Date.now();
    for (const [k, at] of recentlyStarted) if (now - at > RECENTLY_STARTED_MS) recentlyStarted.delete(k);
    const due = await deliveries.unstarted(batchSize, [...recentlyStarted.keys()]);
    if (due.length === 0) return 0;
    if (opts.crashAt === 'before-start') process.exit(86);
    // A pool rather than chunks: a slow start does not hold up the other slots.
    let next = 0;
    const slot = async () => {
      while (next < due.length) {
        const d = due[next++]!;
        try {
          await start(d);
          if (opts.crashAt === 'before-mark') process.exit(87);
          recentlyStarted.set(runKey(d), Date.now());
        } catch (err) {
          log.warn('could not start a delivery workflow; will retry', { error: String(err) });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(START_CONCURRENCY, due.length) }, slot));
    return due.length;
  };

  const loop = async () => {
    while (running) {
      dirty = false;
      let n = 0;
      try {
        n = await pass();
      } catch (err) {
        log.error('relay pass failed', { error: String(err) });
      }
      if (n >= batchSize || dirty) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, opts.pollMs ?? 1000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  };

  // LISTEN on a connection of its own; if it drops, poll meanwhile and reconnect with a back-off.
  const reconnect = (): void => {
    setTimeout(() => {
      if (running) listen().catch(reconnect);
    }, 2_000).unref();
  };
  const listen = async (): Promise<void> => {
    const client = new pg.Client({
      connectionString: opts.databaseUrl,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
    });
    client.on('notification', () => {
      dirty = true;
      wake?.();
    });
    client.on('error', (err) => {
      log.warn('relay listener lost its connection; polling until it is back', { error: String(err) });
      void client.end().catch(() => undefined);
      if (listener === client) listener = undefined;
      reconnect();
    });
    await client.connect();
    await client.query(`LISTEN ${DELIVERIES_CHANNEL}`);
    listener = client;
    dirty = true; // anything committed while nobody listened
    wake?.();
  };
  const ready = listen();
  const done = ready.then(loop);
  return {
    ready,
    stop: async () => {
      running = false;
      wake?.();
      await done.catch(() => undefined);
      await listener?.end().catch(() => undefined);
    },
  };
}
