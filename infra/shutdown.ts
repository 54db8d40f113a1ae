import type { Logger } from './logger';

/** Runs `cleanup` once on SIGINT or SIGTERM, then exits; a second signal exits at once. */
export function onShutdown(log: Logger, cleanup: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn(`second ${signal}: exiting without waiting`);
      process.exit(1);
    }
    stopping = true;
    log.info(`${signal} received: shutting down`);
    cleanup().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error('shutdown failed', { error: String(err) });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
