import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../infra/config';
import { createLogger } from '../infra/logger';
import { onShutdown } from '../infra/shutdown';
import { createStops } from '../tooling/cleanup';
import { takeDataDir } from '../tooling/dev-lock';
import { writeDevStack } from '../tooling/dev-stack';
import { dataDir } from '../tooling/paths';
import { freePort } from '../tooling/processes';
import { mailOfStack, stackBanner, startLocalChannels } from '../tooling/local-channels';
import { startStack } from '../tooling/stack';
import { seedDemo } from './seed-demo';

/**
 * `npm run dev`: the whole stack in one process tree. PostgreSQL and the Temporal dev server keep
 * their data under .data/ (or DEV_DATA_DIR) unless DATABASE_URL / TEMPORAL_ADDRESS point elsewhere.
 */
const log = createLogger('dev', 'info');
const dir = dataDir(process.env);
const stops = createStops(log);

async function main() {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'development',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // The operator's break-glass (`approval approve|reject --as`), so a demo can be decided from a shell.
    APPROVALS_OPERATOR_DECIDE: 'true',
    ...process.env,
  };
  await takeDataDir(dir, 'dev', Number(env.PORT ?? 3000), stops);
  onShutdown(log, stops.stopAll);

  const channels = await startLocalChannels(env, stops, dir);

  // Prometheus's usual ports for the two metrics pages, or free ones when another stack holds them.
  env.METRICS_PORT ??= String(await freePort(9464));
  env.WORKER_METRICS_PORT ??= String(await freePort(9465));

  const {
    postgres: pg,
    temporal,
    config,
    db,
    api,
    worker,
  } = await startStack({
    log,
    stops,
    env,
    postgres: env.DATABASE_URL ? undefined : { dataDir: path.join(dir, 'pg'), database: 'leads' },
    database: {},
    temporal: env.TEMPORAL_ADDRESS
      ? undefined
      : {
          dbFile: path.join(dir, 'temporal', 'temporal.db'),
          port: await freePort(Number(env.TEMPORAL_PORT ?? 7233)),
          uiPort: await freePort(Number(env.TEMPORAL_UI_PORT ?? 8233)),
        },
    worker: true,
    api: true,
  });

  writeDevStack(dir, {
    pid: process.pid,
    engine: 'dev',
    apiUrl: api.url,
    publicUrl: config.publicUrl,
    databaseUrl: config.databaseUrl,
    temporalAddress: config.temporalAddress,
    temporalUiUrl: temporal?.uiUrl,
    temporalNamespace: config.temporalNamespace,
    temporalTaskQueue: config.temporalTaskQueue,
    children: { postgres: pg?.pid, temporal: temporal?.pid },
    ...mailOfStack(env, config.smtp),
  });
  const demo = await seedDemo(db);
  process.stdout.write(
    stackBanner({
      apiUrls: [api.url],
      publicUrl: config.publicUrl,
      temporalUiUrl: temporal?.uiUrl,
      temporalAddress: config.temporalAddress,
      env,
      channels,
      dkim: config.smtp?.dkim,
      metrics: [
        ['API metrics', api.metricsUrl],
        ['Worker metrics', `${worker.metricsUrl}   (with the Temporal SDK's)`],
      ],
      more: [operatorDecisions(config.approvalsOperatorDecide)],
      dataDir: dir,
      demo,
    }),
  );
  log.info('ready', {
    api_url: api.url,
    temporal_ui_url: temporal?.uiUrl ?? null,
    api_metrics_url: api.metricsUrl,
    worker_metrics_url: worker.metricsUrl,
  });
}

/** The banner's line on the operator's break-glass, which `npm run dev` turns on unless told otherwise. */
const operatorDecisions = (on: boolean) =>
  `${'  Operator decides:'.padEnd(20)}${
    on
      ? 'on (APPROVALS_OPERATOR_DECIDE=true): approval approve|reject --as decides, recorded as operator-asserted'
      : 'outside production only (APPROVALS_OPERATOR_DECIDE=false); members decide in the console'
  }`;

main().catch(async (err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err instanceof Error ? err.message : err);
  await stops.stopAll();
  process.exit(1);
});
