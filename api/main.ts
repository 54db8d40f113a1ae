import { openDatabase } from '../domain/data-source';
import { Connection } from '@temporalio/client';
import { API_SEARCH_ATTRIBUTES } from '../domain/kernel/search-attributes';
import { ConfigError, loadConfig, warnOfForcedSettings, type Config } from '../infra/config';
import { createLogger, type Logger } from '../infra/logger';
import { checkTemporalEngine, TemporalEngineError } from '../infra/temporal-engine';
import { onShutdown } from '../infra/shutdown';
import { listenApi } from './listen';

/** Production entry point of the API process (`npm start`); migrations run separately. */
async function main() {
  const config = loadConfig();
  const log = createLogger('api', config.logLevel);
  warnOfForcedSettings(config, log);
  await checkEngine(config, log);
  const db = await openDatabase(config.databaseUrl, { poolSize: config.dbPoolSize, timeouts: config.db });
  const api = await listenApi(config, db, log);
  log.info('api listening', { url: api.url });
  onShutdown(log, async () => {
    await api.close();
    await db.destroy();
  });
}

/**
 * The API starts approval and booking workflows: a namespace without their search attributes stops
 * it at once, with the command that registers them. An engine not up yet does not: REST serves, and
 * those starts wait for it.
 */
async function checkEngine(config: Config, log: Logger) {
  const connection = await Connection.connect({
    address: config.temporalAddress,
    connectTimeout: 3000,
  }).catch((err: unknown) => {
    log.warn('Temporal is not reachable; REST serves, and approvals and bookings wait for it', {
      temporal_address: config.temporalAddress,
      error: String(err),
    });
    return undefined;
  });
  if (!connection) return;
  try {
    await checkTemporalEngine(connection, {
      address: config.temporalAddress,
      namespace: config.temporalNamespace,
      who: 'API',
      attributes: API_SEARCH_ATTRIBUTES,
    });
  } finally {
    await connection.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError || err instanceof TemporalEngineError ? err.message : err);
  process.exit(1);
});
