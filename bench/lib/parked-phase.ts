import { existsSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../infra/logger';
import { commitEvent } from './outbox-load';
import { withConcurrency } from './pacing';
import { CONCURRENCY } from './path-phases';
import { procMemory, type ProcMemory } from './proc-memory';
import { temporalDbFile, type WebhookStack } from './webhook-stack';

export type ParkedFigures = {
  requested: number;
  /** Deliveries FAILED (attempt 1 answered 503, the workflow asleep in the ladder) when memory was read. */
  parked: number;
  completed: boolean;
  statuses: Record<string, number>;
  seconds_to_park: number;
  parked_per_second: number;
  worker_before: ProcMemory;
  worker: ProcMemory;
  temporal: ProcMemory;
  sqlite_mib: { db: number; wal: number; total: number };
  /** Requests the 503 receiver saw: attempts 2+ appear once the first sleepers (30 s) wake. */
  failing_receiver_requests: number;
  later_attempts_seen: number;
  /**
   * Receipts of an (event, attempt) the receiver had already seen: an attempt sent twice. A re-run of
   * an attempt whose workflow task was lost (the worker logs "untracked local activity") must answer
   * from the record instead, so this stays 0.
   */
  sent_twice: number;
  /** The attempts recorded for these deliveries, by `error_class` (`http_503` for an answer). */
  attempts_recorded: Record<string, number>;
  /** Every 5 s: whether memory levels off once the workflow cache is full, or grows with each sleeper. */
  samples: { seconds: number; parked: number; worker_rss_mib: number; temporal_rss_mib: number }[];
};

// Starting one delivery takes ~20 ms on this machine; two minutes of no progress means a stuck path.
const STALL_MS = 120_000;

const mib = (file: string) => (existsSync(file) ? Math.round((statSync(file).size / 2 ** 20) * 10) / 10 : 0);

async function statuses(s: WebhookStack): Promise<Record<string, number>> {
  const rows = await s.db.query<{ status: string; n: string }[]>(
    `SELECT status, count(*) AS n FROM webhook_deliveries WHERE workspace_id = $1 GROUP BY status`,
    [s.failWorkspace],
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/**
 * N events for an endpoint that answers 503: each workflow makes attempt 1, records FAILED and
 * sleeps 30 s in the ladder. Once all N are FAILED, the worker's and the Temporal server's memory.
 */
export async function parkedPhase(s: WebhookStack, count: number, log: Logger): Promise<ParkedFigures> {
  const workerBefore = procMemory(s.worker.pid);
  log.info(`parked retries: committing ${count} events for the endpoint that answers 503`);
  const started = performance.now();
  await withConcurrency(count, CONCURRENCY, () => commitEvent(s.db, s.failWorkspace));
  log.info(`committed in ${((performance.now() - started) / 1000).toFixed(1)} s; waiting for all to park`);
  let parked = 0;
  let lastProgress = Date.now();
  let lastLog = 0;
  let now: Record<string, number> = {};
  const samples: ParkedFigures['samples'] = [];
  while (parked < count) {
    await sleep(1000);
    const reason = s.worker.exitReason();
    if (reason) throw new Error(`${reason} with ${parked}/${count} deliveries parked`);
    now = await statuses(s);
    if ((now.FAILED ?? 0) > parked) lastProgress = Date.now();
    parked = now.FAILED ?? 0;
    if (Date.now() - lastProgress > STALL_MS) {
      log.warn(`parked retries: stuck at ${parked}/${count} for ${STALL_MS / 1000} s; reading memory anyway`);
      break;
    }
    if (Date.now() - lastLog >= 5000) {
      lastLog = Date.now();
      const elapsed = (performance.now() - started) / 1000;
      const sample = {
        seconds: Math.round(elapsed),
        parked,
        worker_rss_mib: procMemory(s.worker.pid).rss_mib,
        temporal_rss_mib: procMemory(s.temporal.pid).rss_mib,
      };
      samples.push(sample);
      log.info(`parked ${parked}/${count} (${(parked / elapsed).toFixed(1)}/s)`, {
        ...sample,
        statuses: now,
      });
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const worker = procMemory(s.worker.pid);
  const temporal = procMemory(s.temporal.pid);
  const sqlite = { db: mib(temporalDbFile()), wal: mib(`${temporalDbFile()}-wal`) };
  const inbox = s.receiver.inbox('fail');
  let later = 0;
  let twice = 0;
  for (const receipts of inbox.byEvent.values()) {
    later += receipts.filter((r) => r.attempt > 1).length;
    twice += receipts.length - new Set(receipts.map((r) => r.attempt)).size;
  }
  const recorded = await s.db.query<{ error_class: string | null; n: string }[]>(
    `SELECT a.error_class, count(*) AS n FROM webhook_attempts a
       JOIN webhook_deliveries d ON d.id = a.delivery_id
      WHERE d.workspace_id = $1 GROUP BY a.error_class`,
    [s.failWorkspace],
  );
  return {
    requested: count,
    parked,
    completed: parked >= count,
    statuses: now,
    seconds_to_park: Math.round(seconds * 10) / 10,
    parked_per_second: Math.round((parked / seconds) * 10) / 10,
    worker_before: workerBefore,
    worker,
    temporal,
    sqlite_mib: { ...sqlite, total: Math.round((sqlite.db + sqlite.wal) * 10) / 10 },
    failing_receiver_requests: inbox.requests,
    later_attempts_seen: later,
    sent_twice: twice,
    attempts_recorded: Object.fromEntries(recorded.map((r) => [r.error_class ?? 'none', Number(r.n)])),
    samples,
  };
}
