import { openDatabase } from '../domain/data-source';
import { ConfigError, loadConfig, warnOfForcedSettings } from '../infra/config';
import { TemporalEngineError } from '../infra/temporal-engine';
import { createLogger } from '../infra/logger';
import { onShutdown } from '../infra/shutdown';
import { runWorker } from './run';

/** Production entry point of the worker process (`npm run worker`). */
async function main() {
  const config = loadConfig();
  const log = createLogger('worker', config.logLevel);
  warnOfForcedSettings(config, log);
  const db = await openDatabase(config.databaseUrl, { poolSize: config.dbPoolSize, timeouts: config.db });
  const worker = await runWorker(config, db, log);
  onShutdown(log, async () => {
    await worker.shutdown();
    await db.destroy();
  });
  await worker.done;
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError || err instanceof TemporalEngineError ? err.message : err);
  process.exit(1);
});
