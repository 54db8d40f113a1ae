import { openDatabase } from '../domain/data-source';
import { ConfigError, loadConfig, warnOfForcedSettings } from '../infra/config';
import { createLogger } from '../infra/logger';
import { onShutdown } from '../infra/shutdown';
import { listenApi } from './listen';

/** Production entry point of the API process (`npm start`); migrations run separately. */
async function main() {
  const config = loadConfig();
  const log = createLogger('api', config.logLevel);
  warnOfForcedSettings(config, log);
  const db = await openDatabase(config.databaseUrl, { poolSize: config.dbPoolSize, timeouts: config.db });
  // API_CRASH_AFTER_COMMIT exists for the crash-safety suite only: the process dies after that many
  // lead intakes have committed, before the last one's answer, as a kill -9 would.
  const crashAfterCommit = Number(process.env.API_CRASH_AFTER_COMMIT) || undefined;
  if (crashAfterCommit && config.env === 'production')
    throw new Error('API_CRASH_AFTER_COMMIT is a test fault and is refused in production');
  const api = await listenApi(config, db, log, { crashAfterCommit });
  log.info('api listening', { url: api.url });
  onShutdown(log, async () => {
    await api.close();
    await db.destroy();
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
