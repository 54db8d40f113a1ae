/**
 * The Temporal server's counters that say what a delivery asks of it, by `metric|service|operation`
 * (`service_error_with_type:<error type>|...` for the refusals).
 */
export type TemporalReading = Map<string, number>;

export type TemporalCosts = {
  /** StartWorkflowExecution calls the frontend answered per delivery: above 1 when relays race. */
  start_requests: number;
  /** Those refused because the workflow id had a run already (a relay offering a row started meanwhile). */
  start_refused: number;
  /** The history service's persistence calls per delivery, and their mean time (the database's answer and any wait for a connection). */
  history_persistence: Record<string, { calls: number; ms_per_call: number }>;
  /**
   * The workflow writes among them, which hold their shard's I/O semaphore (one at a time per shard:
   * the server's default `history.shardIOConcurrency` of 1), per delivery, and their mean time: what
   * bounds one shard's rate. The shard's own bookkeeping (UpdateShard) is left out: it comes with time,
   * not with deliveries.
   */
  shard_writes: { calls: number; ms_per_call: number };
  /** Mean wait for a shard's semaphore (every holder, bookkeeping too): near 0 while shards are not what deliveries queue for. */
  shard_io_wait_ms_mean: number;
};

/**
 * The persistence calls a shard makes under its I/O semaphore (service/history/shard/context_impl.go,
 * `ioSemaphoreAcquire`, 1.32.2), less AssertShardOwnership and UpdateShard; its metric names them all
 * `ShardInfo`, so their time is taken from the persistence latencies of these operations.
 */
const SHARD_WRITES = [
  'CreateWorkflowExecution',
  'UpdateWorkflowExecution',
  'ConflictResolveWorkflowExecution',
  'SetWorkflowExecution',
  'DeleteWorkflowExecution',
  'AddTasks',
];

const KEPT = new Set([
  'service_requests',
  'service_error_with_type',
  'persistence_requests',
  'persistence_latency_sum',
  'semaphore_latency_sum',
  'semaphore_latency_count',
]);

/**
 * The Prometheus page's counters above, summed over the labels other than service and operation (and
 * the error's type). The dev server (`temporal server start-dev --metrics-port`) names them as the real
 * server does.
 */
export async function readTemporalMetrics(url: string): Promise<TemporalReading> {
  const text = await (await fetch(url)).text();
  const reading: TemporalReading = new Map();
  for (const line of text.split('\n')) {
    const m = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || !KEPT.has(m[1]!)) continue;
    const label = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(m[2]!)?.[1] ?? '';
    const metric = m[1] === 'service_error_with_type' ? `${m[1]}:${label('error_type')}` : m[1];
    const key = `${metric}|${label('service_name')}|${label('operation')}`;
    reading.set(key, (reading.get(key) ?? 0) + Number(m[3]));
  }
  return reading;
}

const counted = (before: TemporalReading, after: TemporalReading, key: string) =>
  (after.get(key) ?? 0) - (before.get(key) ?? 0);

const ALREADY_STARTED = 'serviceerror_WorkflowExecutionAlreadyStarted';

/**
 * StartWorkflowExecution calls the frontend answered between two readings; those it refused because
 * the workflow id had a run already; and those that failed otherwise, by the error's type (a call cut
 * off by its client's death, say).
 */
export function startCalls(before: TemporalReading, after: TemporalReading) {
  const errors = `service_error_with_type:`;
  const failed: Record<string, number> = {};
  for (const key of after.keys()) {
    const [metric, service, operation] = key.split('|');
    if (!metric!.startsWith(errors) || service !== 'frontend' || operation !== 'StartWorkflowExecution')
      continue;
    const type = metric!.slice(errors.length);
    const n = counted(before, after, key);
    if (type !== ALREADY_STARTED && n > 0) failed[type] = n;
  }
  return {
    calls: counted(before, after, 'service_requests|frontend|StartWorkflowExecution'),
    refused: counted(before, after, `${errors}${ALREADY_STARTED}|frontend|StartWorkflowExecution`),
    failed,
  };
}

/** What the server did between two readings, per delivery. */
export function temporalCosts(
  before: TemporalReading,
  after: TemporalReading,
  deliveries: number,
): TemporalCosts {
  const n = Math.max(1, deliveries);
  const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
  const delta = (metric: string, service: string, operation: string) =>
    counted(before, after, `${metric}|${service}|${operation}`);
  const operations = (metric: string, service: string) =>
    [...after.keys()]
      .filter((k) => k.startsWith(`${metric}|${service}|`))
      .map((k) => k.split('|')[2]!)
      .filter((op) => delta(metric, service, op) > 0);
  const perOp = (ops: string[]) => {
    const calls = ops.reduce((sum, op) => sum + delta('persistence_requests', 'history', op), 0);
    const seconds = ops.reduce((sum, op) => sum + delta('persistence_latency_sum', 'history', op), 0);
    return { calls: round(calls / n), ms_per_call: round(calls > 0 ? (seconds * 1000) / calls : 0, 3) };
  };
  const semaphores = operations('semaphore_latency_count', 'history');
  const waits = semaphores.reduce((sum, op) => sum + delta('semaphore_latency_count', 'history', op), 0);
  const waited = semaphores.reduce((sum, op) => sum + delta('semaphore_latency_sum', 'history', op), 0);
  const starts = startCalls(before, after);
  return {
    start_requests: round(starts.calls / n),
    start_refused: round(starts.refused / n),
    history_persistence: Object.fromEntries(
      operations('persistence_requests', 'history').map((op) => [op, perOp([op])]),
    ),
    shard_writes: perOp(SHARD_WRITES),
    shard_io_wait_ms_mean: round(waits > 0 ? (waited * 1000) / waits : 0, 3),
  };
}
