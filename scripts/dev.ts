import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { listenApi } from '../api/listen';
import { openDatabase } from '../domain/data-source';
import { ConfigError, loadConfig } from '../infra/config';
import { writeDevStack } from '../infra/dev-stack';
import { createLogger } from '../infra/logger';
import { dataDir, stackFile } from '../infra/paths';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../infra/postgres';
import { freePort } from '../infra/processes';
import { onShutdown } from '../infra/shutdown';
import { startTemporalDevServer, type TemporalDevServer } from '../infra/temporal-server';
import { runWorker } from '../worker/run';
import { seedDemo } from './seed-demo';

/**
 * `npm run dev`: the whole stack in one process tree. PostgreSQL and the Temporal dev server keep
 * their data under .data/ (or DEV_DATA_DIR) unless DATABASE_URL / TEMPORAL_ADDRESS point elsewhere.
 */
const log = createLogger('dev', 'info');
const dir = dataDir();
const stops: (() => Promise<void>)[] = [];
const stopAll = async () => {
  for (const stop of stops.reverse())
    await stop().catch((err: unknown) => log.error('stop failed', { error: String(err) }));
  rmSync(stackFile(dir), { force: true });
};

async function main() {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'development',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    ...process.env,
  };
  onShutdown(log, stopAll);

  let pg: EmbeddedPostgres | undefined;
  if (!env.DATABASE_URL) {
    pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), database: 'leads', log });
    stops.push(pg.stop);
    env.DATABASE_URL = pg.url;
  }
  let temporal: TemporalDevServer | undefined;
  if (!env.TEMPORAL_ADDRESS) {
    temporal = await startTemporalDevServer({
      log,
      dbFile: path.join(dir, 'temporal', 'temporal.db'),
      port: await freePort(Number(env.TEMPORAL_PORT ?? 7233)),
      uiPort: await freePort(Number(env.TEMPORAL_UI_PORT ?? 8233)),
    });
    stops.push(temporal.stop);
    env.TEMPORAL_ADDRESS = temporal.address;
  }
  const config = loadConfig(env);
  const db = await openDatabase(config.databaseUrl, { migrate: true, poolSize: config.dbPoolSize });
  stops.push(() => db.destroy());
  const worker = await runWorker(config, db, createLogger('worker', config.logLevel));
  stops.push(worker.shutdown);
  const api = await listenApi(config, db, createLogger('api', config.logLevel));
  stops.push(api.close);

  writeDevStack(dir, {
    pid: process.pid,
    apiUrl: api.url,
    databaseUrl: config.databaseUrl,
    temporalAddress: config.temporalAddress,
    temporalUiUrl: temporal?.uiUrl,
    temporalNamespace: config.temporalNamespace,
    temporalTaskQueue: config.temporalTaskQueue,
    children: { postgres: pg?.pid, temporal: temporal?.pid },
  });
  const demo = await seedDemo(db);
  const lines = [
    '',
    'Lead service is running (Ctrl+C stops everything).',
    `  API base URL:     ${api.url}/api/v1`,
    `  Temporal Web UI:  ${temporal?.uiUrl ?? `(external Temporal at ${config.temporalAddress})`}`,
    `  Data:             ${dir}`,
    '',
    `Demo workspace:     ${demo.workspace.name} (${demo.workspace.id})`,
    `  admin member:     ${demo.adminEmail}`,
    demo.key
      ? `  API key:          ${demo.key}   (shown once; every scope)`
      : '  API key:          shown on first run only; make another with: npm run -s admin -- key create ...',
    '',
    `  curl -H "Authorization: Bearer ${demo.key ?? '<key>'}" ${api.url}/api/v1/me`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  log.info('ready', { api_url: api.url, temporal_ui_url: temporal?.uiUrl ?? null });
}

main().catch(async (err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err instanceof Error ? err.message : err);
  await stopAll();
  process.exit(1);
});
