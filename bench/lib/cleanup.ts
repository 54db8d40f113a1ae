import type { Logger } from '../../infra/logger';

export type Stops = (() => Promise<void>)[];

/**
 * Runs `body` with a list it pushes stop functions onto, and runs them last-pushed first when it
 * ends, throws, or the bench gets SIGINT/SIGTERM, so no server or database outlives the bench.
 */
export async function withCleanup<T>(log: Logger, body: (stops: Stops) => Promise<T>): Promise<T> {
  const stops: Stops = [];
  let stopping: Promise<void> | undefined;
  const stopAll = () =>
    (stopping ??= (async () => {
      for (const stop of stops.reverse())
        await stop().catch((err: unknown) => log.error('stop failed', { error: String(err) }));
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    log.warn(`${signal}: stopping what the bench started`);
    void stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await body(stops);
  } finally {
    await stopAll();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
