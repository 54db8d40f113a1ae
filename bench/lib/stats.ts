export type Measured = {
  requests: number;
  seconds: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  non_2xx: number;
  errors: number;
  statuses: Record<string, number>;
  /**
   * CPU per request, ms, of the whole machine (every core: server, PostgreSQL, load generator, kernel)
   * and of PostgreSQL's processes alone, while the phase ran; taken by the load runs (`hammer`).
   */
  cpu_ms_per_request?: number;
  postgres_cpu_ms_per_request?: number;
};

/** Nearest-rank percentile of already sorted values. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Collects every response's latency and status (not autocannon's histogram, which has 1 ms steps). */
export class Recorder {
  private latencies: number[] = [];
  private statuses: Record<string, number> = {};
  private errors = 0;

  response(status: number, ms: number) {
    this.latencies.push(ms);
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
  }
  error() {
    this.errors += 1;
  }
  summary(seconds: number): Measured {
    const sorted = Float64Array.from(this.latencies).sort();
    const non2xx = Object.entries(this.statuses)
      .filter(([s]) => !s.startsWith('2'))
      .reduce((sum, [, n]) => sum + n, 0);
    return {
      requests: sorted.length,
      seconds: round(seconds, 2),
      rps: round(sorted.length / seconds, 1),
      p50_ms: round(percentile(sorted, 50), 2),
      p99_ms: round(percentile(sorted, 99), 2),
      non_2xx: non2xx,
      errors: this.errors,
      statuses: this.statuses,
    };
  }
}
