import type { CpuCosts } from './process-meter';
import { cpus } from 'node:os';
import type { BaselineFigures } from './baseline-phases';
import type { DeliveryFigures } from './delivery-check';
import type { EngineFigures } from './engine-phases';
import { engineComparison } from './engines-report';
import type { ParkedFigures } from './parked-phase';
import type { PathLatency, PathThroughput } from './path-phases';
import type { ProcMemory } from './proc-memory';
import type { Engine } from './webhook-stack';
import { formatTable } from './report';
import { printWorkerCpuByPart, type WorkerCpuByPart } from './worker-profile';

const TARGETS = {
  deliveries_per_second: 50,
  p50_ms: 25,
  p99_ms: 50,
  parked: 10_000,
  parked_worker_rss_mib: 250,
} as const;

export type WebhooksResults = {
  settings: {
    events: number;
    latency_seconds: number;
    parked: number;
    engine: Engine;
    history_shards: number;
  };
  envelope_bytes: number;
  path: { throughput: PathThroughput; latency: PathLatency };
  baseline: { throughput: BaselineFigures; latency: BaselineFigures };
  /** Temporal alone: eager starts of a workflow whose one local activity does nothing. */
  floor: { throughput: DeliveryFigures; latency: DeliveryFigures; cpu: CpuCosts | null };
  memory_at_start: { worker: ProcMemory; temporal: ProcMemory };
  memory_after_latency: { worker: ProcMemory; temporal: ProcMemory };
  parked: ParkedFigures | null;
  /** 1-minute load averages when the bench started and ended: other work on the machine skews figures. */
  load_average: { start: number; end: number };
  /** Requests the receiver answered 401: a wrong signature, so never counted as received. */
  bad_signatures: Record<string, number>;
  /** The same phases on the real Temporal server (`--engine cluster`), after the dev server's. */
  cluster: EngineFigures | null;
  /** The worker's CPU per delivery by part, from a profiled repeat of the throughput phase (`--profile-worker`). */
  worker_cpu_by_part: WorkerCpuByPart | null;
};

const verdict = (ok: boolean) => (ok ? 'pass' : 'FAIL');
const ratio = (a: number, b: number) => `${(a / b).toFixed(a / b < 0.1 ? 4 : 2)}x`;
type Intact = Pick<DeliveryFigures, 'lost' | 'duplicates' | 'first_receipt_not_attempt_1'>;
// In a clean run every event arrives once, at attempt 1: a later first attempt means one failed.
const intact = (f: Intact) => f.lost === 0 && f.duplicates === 0 && f.first_receipt_not_attempt_1 === 0;

/** Prints the table, a few lines of detail and, as the very last stdout line, every figure as JSON. */
export function printWebhooksReport(r: WebhooksResults): { lost: number } {
  const { path, baseline, floor, parked } = r;
  const ft = floor.throughput;
  const fl = floor.latency;
  const pt = path.throughput;
  const pl = path.latency;
  const bt = baseline.throughput;
  const bl = baseline.latency;
  const throughputMet = pt.per_second >= TARGETS.deliveries_per_second && intact(pt);
  const latencyMet = pl.p50_ms <= TARGETS.p50_ms && pl.p99_ms <= TARGETS.p99_ms && intact(pl);
  const parkedMet =
    parked !== null && parked.completed && parked.worker.rss_mib <= TARGETS.parked_worker_rss_mib;
  const lost = pt.lost + pl.lost + bt.lost + bl.lost + ft.lost + fl.lost;

  const deliveryRow = (label: string, f: Intact, measured: string) => [
    label,
    measured,
    String(f.lost),
    String(f.duplicates),
    String(f.first_receipt_not_attempt_1),
  ];
  const rows = [
    [
      ...deliveryRow('whole path throughput', pt, `${pt.per_second.toFixed(1)} deliveries/s`),
      `>= ${TARGETS.deliveries_per_second}/s, each once at attempt 1`,
      verdict(throughputMet),
      ratio(pt.per_second, bt.per_second),
      ratio(pt.per_second, ft.per_second),
    ],
    [
      ...deliveryRow('baseline throughput', bt, `${bt.per_second.toFixed(1)} deliveries/s`),
      '-',
      '-',
      '1x',
      '-',
    ],
    [
      ...deliveryRow('Temporal floor throughput', ft, `${ft.per_second.toFixed(1)} workflows/s`),
      '-',
      '-',
      '-',
      '1x',
    ],
    [
      ...deliveryRow('whole path latency@10/s', pl, `p50 ${pl.p50_ms} / p99 ${pl.p99_ms} ms`),
      `<= ${TARGETS.p50_ms} / ${TARGETS.p99_ms} ms`,
      verdict(latencyMet),
      `${ratio(pl.p50_ms, bl.p50_ms)} / ${ratio(pl.p99_ms, bl.p99_ms)}`,
      `${ratio(pl.p50_ms, fl.p50_ms)} / ${ratio(pl.p99_ms, fl.p99_ms)}`,
    ],
    [
      ...deliveryRow('baseline latency@10/s', bl, `p50 ${bl.p50_ms} / p99 ${bl.p99_ms} ms`),
      '-',
      '-',
      '1x',
      '-',
    ],
    [
      ...deliveryRow('Temporal floor latency@10/s', fl, `p50 ${fl.p50_ms} / p99 ${fl.p99_ms} ms`),
      '-',
      '-',
      '-',
      '1x',
    ],
    parked === null
      ? ['parked memory', 'skipped (--parked 0)', '-', '-', '-', '-', '-', '-', '-']
      : [
          'parked memory',
          `${parked.parked} parked: worker ${parked.worker.rss_mib} MiB, temporal ${parked.temporal.rss_mib} MiB`,
          '-',
          '-',
          '-',
          `${TARGETS.parked.toLocaleString('en')} in <= ${TARGETS.parked_worker_rss_mib} MiB worker`,
          verdict(parkedMet) + (parked.parked < TARGETS.parked ? ` (at ${parked.parked})` : ''),
          '-',
          '-',
        ],
  ];
  console.log(
    `\n${r.settings.events} events (concurrency 50), ${r.settings.latency_seconds} s at 10 events/s, ` +
      `${r.settings.parked} parked; ~${r.envelope_bytes}-byte envelopes; ${cpus().length} CPUs, ` +
      `load average ${r.load_average.start} at start, ${r.load_average.end} at end\n`,
  );
  console.log(
    formatTable(
      ['', 'measured', 'lost', 'doubled', 'retried', 'target', 'result', 'vs baseline', 'vs Temporal floor'],
      rows,
    ),
  );
  const pg = pt.pg_per_delivery;
  console.log(
    `\nour PostgreSQL per delivery (throughput phase, all processes): ${pg.transactions} transactions ` +
      `(reads included), ${pg.rows_written} rows written ${JSON.stringify(pg.rows_by_table)}, ` +
      `${pg.wal_bytes} WAL bytes`,
  );
  console.log(
    `throughput phase: ${pt.events} commits took ${pt.commit_seconds} s, then the backlog drained; ` +
      `commit->receipt under that backlog p50 ${pt.p50_ms} / p99 ${pt.p99_ms} ms`,
  );
  const { commit_to_attempt_start: before, attempt_start_to_receipt: after } = pl.breakdown;
  console.log(
    `latency@10/s split (ms, wall clocks): commit -> attempt start p50 ${before.p50_ms} / p99 ${before.p99_ms}` +
      ` (relay, workflow start, first task); attempt start -> receipt p50 ${after.p50_ms} / p99 ${after.p99_ms} (POST)`,
  );
  if (parked)
    console.log(
      `parked: ${parked.parked}/${parked.requested} in ${parked.seconds_to_park} s (${parked.parked_per_second}/s); ` +
        `worker peak ${parked.worker.hwm_mib} MiB (before the phase ${parked.worker_before.rss_mib} MiB); ` +
        `temporal peak ${parked.temporal.hwm_mib} MiB; SQLite ${parked.sqlite_mib.db} MiB + WAL ${parked.sqlite_mib.wal} MiB; ` +
        `the 503 receiver saw ${parked.failing_receiver_requests} requests (${parked.sent_twice} an attempt sent twice), ` +
        `attempts recorded ${JSON.stringify(parked.attempts_recorded)}`,
    );
  if (lost > 0) console.log(`LOST: ${lost} deliveries never arrived; these figures measure a broken path`);
  const dev: EngineFigures = {
    engine: 'dev',
    history_shards: null,
    throughput: pt,
    latency: pl,
    floor,
    two_workers: null,
    three_workers: null,
    traced: null,
    no_search_attributes: null,
    way_back: null,
  };
  const engines = engineComparison(dev, r.cluster);
  console.log(
    `\n${r.cluster ? `the dev server beside the cluster (${r.cluster.history_shards} history shards)` : 'the dev server'}: ` +
      'costs from the throughput phase; CPU from /proc, cores = CPU time / wall time\n',
  );
  console.log(engines.table);
  console.log(`\n${engines.saturated.join('\n')}`);
  if (r.worker_cpu_by_part) printWorkerCpuByPart(r.worker_cpu_by_part);
  console.log(
    JSON.stringify({
      bench: 'webhooks',
      settings: r.settings,
      cpus: cpus().length,
      node: process.version,
      load_average: r.load_average,
      envelope_bytes: r.envelope_bytes,
      targets: TARGETS,
      path_throughput: pt,
      path_latency: pl,
      baseline_throughput: bt,
      baseline_latency: bl,
      ratio_throughput_vs_baseline: Math.round((pt.per_second / bt.per_second) * 10_000) / 10_000,
      ratio_p50_vs_baseline: Math.round((pl.p50_ms / bl.p50_ms) * 100) / 100,
      ratio_p99_vs_baseline: Math.round((pl.p99_ms / bl.p99_ms) * 100) / 100,
      floor_temporal_throughput: ft,
      floor_temporal_latency: fl,
      ratio_throughput_vs_temporal_floor: Math.round((pt.per_second / ft.per_second) * 10_000) / 10_000,
      ratio_p50_vs_temporal_floor: Math.round((pl.p50_ms / fl.p50_ms) * 100) / 100,
      ratio_p99_vs_temporal_floor: Math.round((pl.p99_ms / fl.p99_ms) * 100) / 100,
      memory_at_start: r.memory_at_start,
      memory_after_latency: r.memory_after_latency,
      parked,
      bad_signatures: r.bad_signatures,
      throughput_met: throughputMet,
      latency_met: latencyMet,
      parked_met: parked === null ? null : parkedMet,
      lost_total: lost,
      duplicates_total: pt.duplicates + pl.duplicates + bt.duplicates + bl.duplicates,
      retried_total: pt.first_receipt_not_attempt_1 + pl.first_receipt_not_attempt_1,
      cluster: r.cluster,
      ratio_cluster_vs_dev: engines.ratios,
      saturated: engines.saturated,
      worker_cpu_by_part: r.worker_cpu_by_part,
    }),
  );
  return { lost };
}
