import type { Logger } from '../infra/logger';

/** What undoes a start; one with a label says so in the log as it runs, and again if it is slow. */
export type Stop = (() => Promise<void>) & { label?: string };

/** A stop that names what it stops ("the worker"), for the log. */
export const labelled = (label: string, stop: () => Promise<void>): Stop => Object.assign(stop, { label });

/** After this long, a labelled stop that has not ended is named in a warning (it may be what hangs). */
const SLOW_STOP_MS = 10_000;

export type Stops = {
  /** Registers what undoes a start; the last pushed runs first. */
  push: (...stops: Stop[]) => void;
  /**
   * Runs every stop once, newest first. Idempotent and never rejects: a failed stop is logged and
   * the rest still run, so it is safe in `finally`, `catch` and signal handlers.
   */
  stopAll: () => Promise<void>;
  /**
   * On SIGINT or SIGTERM: logs `message(signal)`, stops everything, exits with `exitCode`.
   * Returns what removes the handlers again.
   */
  stopOnSignal: (message: (signal: NodeJS.Signals) => string, exitCode?: number) => () => void;
};

/** The one stop-in-reverse list the dev stack, the test runner, fuzzing and benches share. */
export function createStops(log: Logger): Stops {
  const pending: Stop[] = [];
  let stopping: Promise<void> | undefined;
  // Popping (not iterating a copy) also runs a stop pushed while draining: a start that finished
  // after the stop began must not outlive it.
  const drain = async () => {
    for (let stop = pending.pop(); stop; stop = pending.pop()) {
      const { label } = stop;
      if (label) log.info(`stopping ${label}`);
      const slow =
        label &&
        setTimeout(() => log.warn(`${label} has not stopped after ${SLOW_STOP_MS / 1000} s`), SLOW_STOP_MS);
      await Promise.resolve()
        .then(stop)
        .catch((err: unknown) =>
          log.error('stop failed', { error: String(err), ...(label && { stop: label }) }),
        )
        .finally(() => clearTimeout(slow || undefined));
    }
  };
  const stopAll = () => (stopping ??= drain());
  return {
    push: (...stops) => {
      pending.push(...stops);
      if (stopping) stopping = stopping.then(drain);
    },
    stopAll,
    stopOnSignal: (message, exitCode = 130) => {
      const handler = (signal: NodeJS.Signals) => {
        log.warn(message(signal));
        void stopAll().finally(() => process.exit(exitCode));
      };
      process.once('SIGINT', handler);
      process.once('SIGTERM', handler);
      return () => {
        process.off('SIGINT', handler);
        process.off('SIGTERM', handler);
      };
    },
  };
}

/**
 * Runs `body` with a fresh stop list and stops everything when it ends, throws, or the process gets
 * SIGINT/SIGTERM (then exits 130), so no server or database outlives the run.
 */
export async function withCleanup<T>(log: Logger, body: (stops: Stops) => Promise<T>): Promise<T> {
  const stops = createStops(log);
  const off = stops.stopOnSignal((signal) => `${signal}: stopping what the run started`);
  try {
    return await body(stops);
  } finally {
    await stops.stopAll();
    off();
  }
}
