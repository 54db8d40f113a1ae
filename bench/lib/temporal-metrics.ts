/** The Temporal server's counters that say what a delivery asks of it, by `metric|service|operation`. */
export type TemporalReading = Map<string, number>;

export type TemporalCosts = {
  /** StartWorkflowExecution calls the frontend answered per delivery: above 1 when relays race. */
  start_requests: number;
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
  'persistence_requests',
  'persistence_latency_sum',
  'semaphore_latency_sum',
  'semaphore_latency_count',
]);

/** The Prometheus page's counters above, summed over the labels other than service and operation. */
export async function readTemporalMetrics(url: string): Promise<TemporalReading> {
  const text = await (await fetch(url)).text();
  const reading: TemporalReading = new Map();
  for (const line of text.split('\n')) {
    const m = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || !KEPT.has(m[1]!)) continue;
    const label = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(m[2]!)?.[1] ?? '';
    const key = `${m[1]}|${label('service_name')}|${label('operation')}`;
    reading.set(key, (reading.get(key) ?? 0) + Number(m[3]));
  }
  return reading;
}

/** What the server did between two readings, per delivery. */
export function temporalCosts(
  before: TemporalReading,
  after: TemporalReading,
  deliveries: number,
): TemporalCosts {
  const n = Math.max(1, deliveries);
  const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
  const delta = (metric: string, service: string, operation: string) => {
    const key = `${metric}|${service}|${operation}`;
    return (after.get(key) ?? 0) - (before.get(key) ?? 0);
  };
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
  return {
    start_requests: round(delta('service_requests', 'frontend', 'StartWorkflowExecution') / n),
    history_persistence: Object.fromEntries(
      operations('persistence_requests', 'history').map((op) => [op, perOp([op])]),
    ),
    shard_writes: perOp(SHARD_WRITES),
    shard_io_wait_ms_mean: round(waits > 0 ? (waited * 1000) / waits : 0, 3),
  };
}
