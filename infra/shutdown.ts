import type { Logger } from './logger';

/** How long a clean stop may take before the process gives up on it and exits 1. */
export const FORCE_EXIT_MS = 60_000;

/**
 * Runs `cleanup` once on SIGINT or SIGTERM, then exits 0. Ctrl+C reaches every process of the
 * group (npm, tsx, node), so repeats are expected and ignored; a stuck cleanup is cut off after a minute.
 */
export function onShutdown(log: Logger, cleanup: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal} received: shutting down`);
    setTimeout(() => {
      log.error('shutdown took too long: exiting');
      process.exit(1);
    }, FORCE_EXIT_MS).unref();
    cleanup().then(
      () => {
        log.info('stopped cleanly');
        process.exit(0);
      },
      (err: unknown) => {
        log.error('shutdown failed', { error: String(err) });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
