import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** Runs task(0) .. task(count - 1), at most `concurrency` at a time; results in index order. */
export async function withConcurrency<T>(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<T>,
): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return results;
}

/**
 * Open loop: starts task i at i / rate seconds whether or not earlier ones finished, as independent
 * callers would, so a slow task delays no later start and shows in the latency instead.
 */
export async function paced<T>(rate: number, count: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const started = performance.now();
  // Each outcome is captured at once: a rejection left waiting for Promise.all would count as unhandled.
  const running: Promise<{ ok: true; value: T } | { ok: false; error: unknown }>[] = [];
  for (let i = 0; i < count; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    running.push(
      task(i).then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
    );
  }
  const outcomes = await Promise.all(running);
  const failed = outcomes.find((o) => !o.ok);
  if (failed && !failed.ok) throw failed.error;
  return outcomes.map((o) => (o as { value: T }).value);
}
