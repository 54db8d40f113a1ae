import type { EngineFigures } from './engine-phases';
import type { PathLatency, PathThroughput } from './path-phases';
import type { CpuCosts } from './process-meter';
import { formatTable } from './report';

/**
 * The columns: the dev server, the cluster with one worker, with two and three (no latency phase), two
 * and one again on the way back, and one whose deliveries carry no search attributes (throughput only).
 */
type Column = { t: PathThroughput; l?: PathLatency } | undefined;
type Values = (number | undefined)[];
type Row = { label: string; cells: string[]; values?: Values };

const fixed = (x: number | undefined, digits = 1) =>
  x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(digits);
const ratio = (a?: number, b?: number) =>
  a === undefined || b === undefined || !(b > 0) ? '-' : `${(a / b).toFixed(2)}x`;
const union = (lists: (string[] | undefined)[]) => [...new Set(lists.flatMap((l) => l ?? []))];
const COLUMNS = 7;
const heading = (label: string): Row => ({ label, cells: Array<string>(COLUMNS).fill('') });
const mean = (xs: (number | undefined)[]) =>
  xs.every((x) => x !== undefined) ? xs.reduce<number>((a, x) => a + x, 0) / xs.length : undefined;
// Temporal's visibility store, as docker-compose and tooling/temporal-cluster.ts name it.
const VISIBILITY_DATABASE = 'temporal_visibility';

/** A row of one figure per column, `-` where a column has none. */
function row(
  label: string,
  columns: Column[],
  pick: (c: NonNullable<Column>) => number | undefined,
  digits = 2,
): Row {
  const values = columns.map((c) => (c ? pick(c) : undefined));
  return { label, cells: values.map((v) => fixed(v, digits)), values };
}

/** The machine's busy time less what ran outside this run: every process the path uses, named or not. */
const runMs = (cpu: CpuCosts) => cpu.machine.ms_per_delivery - cpu.outside_run_ms_per_delivery;

const callsOf = (r: Record<string, { calls: number }> | undefined) =>
  r && Object.values(r).reduce((sum, op) => sum + op.calls, 0);

/** Writes a delivery makes under its shard's lock, at their unloaded (10/s) time each: 1000 / that is one shard's rate. */
const shardCeiling = ({ t, l }: NonNullable<Column>) => {
  const writes = t.costs.temporal?.shard_writes.calls;
  const ms = l?.costs.temporal?.shard_writes.ms_per_call;
  return writes && ms ? 1000 / (writes * ms) : undefined;
};

function cpuRows(columns: Column[]): Row[] {
  const names = union(columns.map((c) => c && Object.keys(c.t.costs.cpu.processes)));
  const perProcess = names.map((name): Row => {
    const r = row(`  ${name}`, columns, (c) => c.t.costs.cpu.processes[name]?.ms_per_delivery);
    const cells = columns.map((c, i) => {
      const p = c?.t.costs.cpu.processes[name];
      if (!p) return '-';
      const thread = p.busiest_thread ? `; thread ${p.busiest_thread.cores}` : '';
      return `${r.cells[i]} (${p.cores}${thread})`;
    });
    return { ...r, cells };
  });
  return [
    heading('CPU ms per delivery (cores busy; busiest thread)'),
    ...perProcess,
    row('  other processes of this run', columns, (c) => c.t.costs.cpu.run_other_ms_per_delivery),
    row('  outside this run (other load, kernel)', columns, (c) => c.t.costs.cpu.outside_run_ms_per_delivery),
    row("  this run's processes", columns, (c) => runMs(c.t.costs.cpu)),
    row('  whole machine', columns, (c) => c.t.costs.cpu.machine.ms_per_delivery),
    row("  this run's processes @10/s", columns, (c) => c.l && runMs(c.l.costs.cpu)),
    row('machine busy, % of all cores', columns, (c) => c.t.costs.cpu.machine.busy_share * 100, 0),
    heading('PostgreSQL CPU ms per delivery, by database'),
    ...union(columns.map((c) => c && Object.keys(c.t.costs.cpu.postgres_by_database))).map((db) =>
      row(`  ${db}`, columns, (c) => c.t.costs.cpu.postgres_by_database[db] ?? 0),
    ),
  ];
}

function databaseRows(columns: Column[]): Row[] {
  const databases = union(columns.map((c) => c && Object.keys(c.t.costs.databases.transactions)));
  const walKeys = union(columns.map((c) => c && Object.keys(c.t.costs.databases.wal_bytes)));
  const wal = (db: string): Row => {
    const r = row(`  ${db}`, columns, (c) => c.t.costs.databases.wal_bytes[db] ?? 0, 0);
    const fpi = columns.map((c) => c && (c.t.costs.databases.wal_fpi_bytes[db] ?? 0));
    return { ...r, cells: r.cells.map((cell, i) => (fpi[i] === undefined ? cell : `${cell} (${fpi[i]})`)) };
  };
  return [
    heading('PostgreSQL transactions per delivery'),
    ...databases.map((db) => row(`  ${db}`, columns, (c) => c.t.costs.databases.transactions[db] ?? 0)),
    heading('WAL bytes per delivery (full-page images)'),
    ...walKeys.map(wal),
    row('  total (WAL position)', columns, (c) => c.t.costs.databases.wal_bytes_total, 0),
  ];
}

function temporalRows(columns: Column[]): Row[] {
  return [
    heading('Temporal server per delivery'),
    row('  StartWorkflowExecution calls', columns, (c) => c.t.costs.temporal?.start_requests),
    row('  history persistence calls', columns, (c) => callsOf(c.t.costs.temporal?.history_persistence)),
    row('  shard writes (one at a time per shard)', columns, (c) => c.t.costs.temporal?.shard_writes.calls),
    row('  ms per shard write', columns, (c) => c.t.costs.temporal?.shard_writes.ms_per_call),
    row('  ms per shard write @10/s', columns, (c) => c.l?.costs.temporal?.shard_writes.ms_per_call),
    row('  shard semaphore wait, mean ms', columns, (c) => c.t.costs.temporal?.shard_io_wait_ms_mean),
    row("  one shard's ceiling (@10/s writes), deliveries/s", columns, shardCeiling, 1),
  ];
}

/**
 * What ran out in a throughput phase: every core (the machine over 90% busy), one thread (a process's
 * busiest thread over 0.9 of a core: a Node event loop cannot use a second), or the shards (a write
 * waited longer for its shard's semaphore than it took).
 */
export function saturation(t: PathThroughput): string {
  const found: string[] = [];
  const { machine, processes } = t.costs.cpu;
  if (machine.busy_share >= 0.9)
    found.push(`all ${machine.cores} cores (${Math.round(machine.busy_share * 100)}% busy)`);
  for (const [name, p] of Object.entries(processes))
    if (p.busiest_thread && p.busiest_thread.cores >= 0.9)
      found.push(`${name}'s thread ${p.busiest_thread.name} (${p.busiest_thread.cores} cores)`);
  const shards = t.costs.temporal;
  if (shards && shards.shard_io_wait_ms_mean > shards.shard_writes.ms_per_call)
    found.push(
      `the history shards (a write waits ${shards.shard_io_wait_ms_mean} ms for its shard, takes ${shards.shard_writes.ms_per_call} ms)`,
    );
  return found.length > 0 ? found.join('; ') : 'nothing measured here (the load itself, or waits)';
}

/**
 * The engines side by side: the dev server, the cluster with one, two and three workers and back, with
 * cluster/dev and n/one ratios (means of the way out and back, against both one-worker phases). Costs
 * come from the throughput phase, rows marked @10/s from the latency phase. Answers the table and the
 * ratios for the JSON line.
 */
export function engineComparison(dev: EngineFigures, cluster: EngineFigures | null) {
  const back = cluster?.way_back;
  const columns: Column[] = [
    { t: dev.throughput, l: dev.latency },
    cluster ? { t: cluster.throughput, l: cluster.latency } : undefined,
    cluster?.two_workers ? { t: cluster.two_workers } : undefined,
    cluster?.three_workers ? { t: cluster.three_workers } : undefined,
    back ? { t: back.two_workers } : undefined,
    back ? { t: back.one_worker } : undefined,
    cluster?.no_search_attributes ? { t: cluster.no_search_attributes } : undefined,
  ];
  // The floor beside the one-worker phase nearest it in the run.
  const floors = [dev.floor, cluster?.floor, undefined, undefined, undefined, back?.floor, undefined];
  const floorRow = (label: string, pick: (f: EngineFigures['floor']) => number): Row => {
    const values = floors.map((f) => f && pick(f));
    return { label, cells: values.map((v) => fixed(v, 2)), values };
  };
  const faults = columns.map((c) => {
    if (!c) return '-';
    const phases = c.l ? [c.t, c.l] : [c.t];
    const total = (k: 'lost' | 'duplicates' | 'first_receipt_not_attempt_1') =>
      phases.reduce((n, f) => n + f[k], 0);
    return `${total('lost')} / ${total('duplicates')} / ${total('first_receipt_not_attempt_1')}`;
  });
  const rows: Row[] = [
    row('whole path throughput, deliveries/s', columns, (c) => c.t.per_second, 1),
    floorRow('Temporal floor, workflows/s', (f) => f.throughput.per_second),
    row('whole path latency@10/s p50 ms', columns, (c) => c.l?.p50_ms),
    row('whole path latency@10/s p99 ms', columns, (c) => c.l?.p99_ms),
    floorRow('Temporal floor latency@10/s p50 ms', (f) => f.latency.p50_ms),
    floorRow('Temporal floor latency@10/s p99 ms', (f) => f.latency.p99_ms),
    { label: 'lost / doubled / retried (path phases)', cells: faults },
    ...cpuRows(columns),
    ...floorCpuRows(floors, columns),
    ...databaseRows(columns),
    ...(cluster ? temporalRows(columns) : []),
  ];
  // One worker's phases: the first, and the last when the run came back to one.
  const ones = back ? [1, 5] : [1];
  // A ratio of means: a count's phases on the way out and back against one worker's (a mirror cancels a drift).
  const ofMeans = (v: Values | undefined, count: number[]) =>
    v ? ratio(mean(count.map((i) => v[i])), mean(ones.map((i) => v[i]))) : '-';
  const body = rows.map((r) => [
    r.label,
    ...r.cells,
    ratio(r.values?.[1], r.values?.[0]),
    ofMeans(r.values, back ? [2, 4] : [2]),
    ofMeans(r.values, [3]),
    ratio(r.values?.[6], r.values?.[back ? 5 : 1]),
  ]);
  // Without the cluster only the dev server's column says anything.
  const header = [
    '',
    'dev server',
    'cluster, 1 worker',
    '2 workers',
    '3 workers',
    '2 workers again',
    '1 worker again',
    'no search attributes',
    'cluster/dev',
    '2 vs 1 worker',
    '3 vs 1 worker',
    'without vs with search attributes',
  ];
  const keep = cluster ? header.map((_, i) => i) : [0, 1];
  const table = formatTable(
    keep.map((i) => header[i]!),
    body.map((cells) => keep.map((i) => cells[i]!)),
  );
  const r2 = (x: number) => Math.round(x * 100) / 100;
  const bare = cluster?.no_search_attributes;
  // Tracing's phase and the one without search attributes follow the last one-worker phase.
  const reference = back?.one_worker ?? cluster?.throughput;
  const visibilityWal = (p: PathThroughput, fpi: 'with' | 'without') =>
    (p.costs.databases.wal_bytes[VISIBILITY_DATABASE] ?? 0) -
    (fpi === 'with' ? 0 : (p.costs.databases.wal_fpi_bytes[VISIBILITY_DATABASE] ?? 0));
  // Three digits: what a few search attributes change is a few per cent at most.
  const withoutVsWith = (pick: (p: PathThroughput) => number) =>
    reference && bare && pick(reference) > 0
      ? Math.round((pick(bare) / pick(reference)) * 1000) / 1000
      : null;
  const rate = (p: PathThroughput | null | undefined) => p?.per_second;
  const machineMs = (c: CpuCosts | null | undefined) => c?.machine.ms_per_delivery;
  const over = (a: (number | undefined)[], b: (number | undefined)[]) => {
    const x = mean(a);
    const y = mean(b);
    return x === undefined || y === undefined || !(y > 0) ? null : r2(x / y);
  };
  const onePhases = cluster ? [cluster.throughput, ...(back ? [back.one_worker] : [])] : [];
  const floorsCpu = cluster ? [cluster.floor.cpu, ...(back ? [back.floor.cpu] : [])] : [];
  const ratios = cluster && {
    throughput: r2(cluster.throughput.per_second / dev.throughput.per_second),
    p50: r2(cluster.latency.p50_ms / dev.latency.p50_ms),
    p99: r2(cluster.latency.p99_ms / dev.latency.p99_ms),
    floor_throughput: r2(cluster.floor.throughput.per_second / dev.floor.throughput.per_second),
    // Means of the way out and back: two workers' phases against both of one worker's.
    two_workers_vs_one: over(
      [cluster.two_workers, ...(back ? [back.two_workers] : [])].map(rate),
      onePhases.map(rate),
    ),
    three_workers_vs_one: over([rate(cluster.three_workers)], onePhases.map(rate)),
    /** Each pass on its own: out (the first phases) and back. */
    two_workers_vs_one_by_pass: [
      over([rate(cluster.two_workers)], [rate(cluster.throughput)]),
      back ? over([rate(back.two_workers)], [rate(back.one_worker)]) : null,
    ],
    start_calls_per_delivery: [
      cluster.throughput,
      cluster.two_workers,
      cluster.three_workers,
      back?.two_workers,
      back?.one_worker,
    ].map((p) => p?.costs.temporal?.start_requests ?? null),
    machine_cpu_vs_floor: over(
      onePhases.map((p) => machineMs(p.costs.cpu)),
      floorsCpu.map(machineMs),
    ),
    machine_cpu_vs_floor_by_pass: onePhases.map((p, i) =>
      over([machineMs(p.costs.cpu)], [machineMs(floorsCpu[i])]),
    ),
    tracing_cpu_vs_untraced:
      cluster.traced && reference && r2(runMs(cluster.traced.path.costs.cpu) / runMs(reference.costs.cpu)),
    tracing_throughput_vs_untraced:
      cluster.traced && reference && r2(cluster.traced.path.per_second / reference.per_second),
    throughput_without_attributes_vs_with: withoutVsWith((p) => p.per_second),
    machine_cpu_without_attributes_vs_with: withoutVsWith((p) => p.costs.cpu.machine.ms_per_delivery),
    run_cpu_without_attributes_vs_with: withoutVsWith((p) => runMs(p.costs.cpu)),
    visibility_wal_without_attributes_vs_with: withoutVsWith((p) => visibilityWal(p, 'with')),
    // Full-page images follow checkpoints, which fall where they fall: the records alone compare the writes.
    visibility_wal_less_fpi_without_attributes_vs_with: withoutVsWith((p) => visibilityWal(p, 'without')),
    wal_total_without_attributes_vs_with: withoutVsWith((p) => p.costs.databases.wal_bytes_total),
    visibility_pg_cpu_without_attributes_vs_with: withoutVsWith(
      (p) => p.costs.cpu.postgres_by_database[VISIBILITY_DATABASE] ?? 0,
    ),
  };
  const saturatedAt = (label: string, p: PathThroughput | null | undefined) =>
    p ? [`saturated, cluster with ${label}: ${saturation(p)}`] : [];
  const saturated = [
    `saturated, dev server: ${saturation(dev.throughput)}`,
    ...(cluster && reference
      ? [
          ...saturatedAt('1 worker', cluster.throughput),
          ...saturatedAt('2 workers', cluster.two_workers),
          ...saturatedAt('3 workers', cluster.three_workers),
          ...saturatedAt('2 workers again', back?.two_workers),
          ...saturatedAt('1 worker again', back?.one_worker),
          ...(cluster.traced
            ? [
                `tracing on (1 worker, OTLP to loopback): ${cluster.traced.path.per_second.toFixed(1)} deliveries/s, ` +
                  `this run's processes ${runMs(cluster.traced.path.costs.cpu).toFixed(2)} ms CPU per delivery ` +
                  `(untraced, the phase before: ${runMs(reference.costs.cpu).toFixed(2)}), worker ` +
                  `${cluster.traced.path.costs.cpu.processes['worker 1']?.ms_per_delivery ?? '-'} ms, ` +
                  `${cluster.traced.exports} exports, ${cluster.traced.export_bytes_per_delivery} bytes per delivery`,
              ]
            : []),
          ...(bare
            ? [
                `saturated, cluster without search attributes: ${saturation(bare)}`,
                `without search attributes (1 worker, WEBHOOK_SEARCH_ATTRIBUTES=none): ${bare.per_second.toFixed(1)} deliveries/s ` +
                  `(with ${reference.per_second.toFixed(1)}), visibility WAL ${visibilityWal(bare, 'with')} bytes per delivery ` +
                  `(with ${visibilityWal(reference, 'with')}; less full-page images ${visibilityWal(bare, 'without')} ` +
                  `against ${visibilityWal(reference, 'without')}), whole machine ` +
                  `${bare.costs.cpu.machine.ms_per_delivery.toFixed(2)} ms CPU per delivery ` +
                  `(with ${reference.costs.cpu.machine.ms_per_delivery.toFixed(2)})`,
              ]
            : []),
        ]
      : []),
  ];
  return { table, ratios, saturated };
}

/**
 * The Temporal floor's CPU per workflow, by process, beside the path's per delivery (the same phase:
 * throughput at concurrency 50, on the same engine, in the same run), and the path's cost as a ratio
 * to it: what a delivery costs beyond a workflow that does nothing. The floor's worker is the bench's
 * process; the path's worker is its own.
 */
function floorCpuRows(floors: (EngineFigures['floor'] | undefined)[], columns: Column[]): Row[] {
  const floorOf = (i: number) => floors[i]?.cpu ?? undefined;
  if (floors.every((_, i) => !floorOf(i))) return [];
  // Each path column against the floor nearest it in the run: the first floor until the way back.
  const nearest = (i: number) => floorOf(i) ?? (i >= 4 ? floorOf(5) : floorOf(Math.min(i, 1)));
  const names = union(floors.map((f) => (f?.cpu ? Object.keys(f.cpu.processes) : undefined)));
  const floorRow = (label: string, pick: (c: CpuCosts) => number | undefined): Row => {
    const values = floors.map((_, i) => {
      const f = floorOf(i);
      return f && pick(f);
    });
    return { label, cells: values.map((v) => fixed(v, 2)), values };
  };
  const pathVsFloor = (label: string, path: (c: CpuCosts) => number, floor: (c: CpuCosts) => number): Row => {
    const values = columns.map((c, i) => {
      const f = nearest(i);
      return c && f && floor(f) > 0 ? path(c.t.costs.cpu) / floor(f) : undefined;
    });
    return { label, cells: values.map((v) => fixed(v, 2)), values };
  };
  return [
    heading('Temporal floor CPU ms per workflow (throughput phase)'),
    ...names.map((name) => floorRow(`  ${name}`, (c) => c.processes[name]?.ms_per_delivery)),
    floorRow("  this run's processes", runMs),
    floorRow('  whole machine', (c) => c.machine.ms_per_delivery),
    heading('path per delivery / floor per workflow (cluster columns: vs the nearest cluster floor)'),
    pathVsFloor(
      '  whole machine',
      (c) => c.machine.ms_per_delivery,
      (f) => f.machine.ms_per_delivery,
    ),
    pathVsFloor("  this run's processes", runMs, runMs),
    pathVsFloor(
      '  Temporal server',
      (c) => c.processes['Temporal server']?.ms_per_delivery ?? 0,
      (f) => f.processes['Temporal server']?.ms_per_delivery ?? 0,
    ),
    pathVsFloor(
      '  PostgreSQL',
      (c) => c.processes.PostgreSQL?.ms_per_delivery ?? 0,
      (f) => f.processes.PostgreSQL?.ms_per_delivery ?? 0,
    ),
  ];
}

/** Lost or doubled deliveries of an engine's path phases (and lost floor workflows): either fails the run. */
export function engineFaults(e: EngineFigures): { lost: number; doubled: number } {
  const phases = [
    e.throughput,
    e.latency,
    ...(e.two_workers ? [e.two_workers] : []),
    ...(e.three_workers ? [e.three_workers] : []),
    ...(e.traced ? [e.traced.path] : []),
    ...(e.no_search_attributes ? [e.no_search_attributes] : []),
    ...(e.way_back ? [e.way_back.two_workers, e.way_back.one_worker] : []),
  ];
  const floors = [e.floor, ...(e.way_back ? [e.way_back.floor] : [])];
  return {
    lost:
      phases.reduce((n, f) => n + f.lost, 0) +
      floors.reduce((n, f) => n + f.throughput.lost + f.latency.lost, 0),
    doubled: phases.reduce((n, f) => n + f.duplicates, 0),
  };
}
