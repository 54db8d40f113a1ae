import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { openDatabase } from '../domain/data-source';
import { ConfigError, loadConfig } from '../infra/config';
import { createLogger } from '../infra/logger';
import { onShutdown } from '../infra/shutdown';
import { createStops, labelled } from '../tooling/cleanup';
import { takeDataDir } from '../tooling/dev-lock';
import { writeDevStack, type DevStack } from '../tooling/dev-stack';
import {
  addClusterWorker,
  requestRoll,
  rollWorkers,
  serveClusterControl,
  type WorkerSet,
} from '../tooling/cluster-roll';
import { mailOfStack, stackBanner, startLocalChannels } from '../tooling/local-channels';
import { dataDir, repoRoot, stackFile } from '../tooling/paths';
import { ensureOwnedDatabases, startEmbeddedPostgres } from '../tooling/postgres';
import { freePort } from '../tooling/processes';
import { startServiceProcess, type ServiceProcess } from '../tooling/service-process';
import { startTemporalCluster } from '../tooling/temporal-cluster';
import { buildIdOf, versionName } from '../worker/versioning';
import { bundleWorkflowsOutOfProcess } from '../worker/worker';
import { seedDemo } from './seed-demo';

/**
 * `npm run cluster`: the production stack's shape on this machine, from real parts. PostgreSQL
 * (embedded) holding the service's database and Temporal's; the real Temporal server, built from its Go
 * module, set up by the deploy/ scripts compose runs; two API and two worker processes from the
 * production build; MailDev, the local SMS provider and the Temporal Web UI. Data under
 * .data/cluster (DEV_DATA_DIR moves .data); the same lock as `npm run dev`, so one stack per folder.
 * `npm run cluster -- roll` rolls the running cluster's workers to the checkout's code as a new version
 * (tooling/cluster-roll.ts), the old ones stopping once drained; `-- add-worker` starts one more worker
 * of the running version (the relays then divide the outbox among three).
 */
const log = createLogger('cluster', 'info');
const dir = dataDir(process.env);
const clusterDir = path.join(dir, 'cluster');
const stops = createStops(log);
const PROCESSES = 2;

async function main() {
  if (process.argv[2] === 'roll')
    process.exit(await requestRoll(readStack(), process.env.WORKER_BUILD_ID || undefined));
  if (process.argv[2] === 'add-worker') {
    console.log(JSON.stringify(await addClusterWorker(readStack())));
    process.exit(0);
  }
  if (process.argv[2])
    throw new ConfigError([
      `npm run cluster takes no argument but roll or add-worker (got ${process.argv[2]})`,
    ]);
  mkdirSync(clusterDir, { recursive: true, mode: 0o755 });
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'development',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    ...process.env,
  };
  const firstPort = Number(env.PORT ?? 3000);
  await takeDataDir(dir, 'cluster', firstPort, stops);
  onShutdown(log, stops.stopAll);
  const shards = historyShards(env.TEMPORAL_HISTORY_SHARDS);

  const postgres = await startEmbeddedPostgres({
    dataDir: path.join(clusterDir, 'pg'),
    database: 'postgres',
    log,
    // As docker-compose.yml sets it: Temporal's services keep pools to its two databases beside the
    // APIs' and workers'; PostgreSQL's default of 100 refused a third worker (`-- add-worker`).
    settings: { max_connections: '300' },
  });
  stops.push(labelled('PostgreSQL', postgres.stop));
  const roles = rolePasswords();
  const databaseUrl = await ensureOwnedDatabases(postgres.url, 'leads', roles.leads, ['leads']);
  const temporal = await startTemporalCluster({
    log,
    postgresUrl: postgres.url,
    temporalPassword: roles.temporal,
    historyShards: shards,
    logDir: path.join(clusterDir, 'logs'),
    port: await freePort(Number(env.TEMPORAL_PORT ?? 7233)),
    uiPort: await freePort(Number(env.TEMPORAL_UI_PORT ?? 8233)),
  });
  stops.push(labelled('the Temporal server and Web UI', temporal.stop));

  // The production build: what the image runs, compiled once here.
  log.info('building (npm run build)');
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: repoRoot(), stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');

  const channels = await startLocalChannels(env, stops, dir);
  Object.assign(env, {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    PUBLIC_URL: env.PUBLIC_URL ?? `http://localhost:${firstPort}`,
    // Built once for both workers, as the image's worker loads it; or one built ahead, as given.
    WORKFLOW_BUNDLE:
      env.WORKFLOW_BUNDLE ?? (await bundleWorkflowsOutOfProcess(path.join(clusterDir, 'workflows.js'))),
  });
  const config = loadConfig(env);
  const logs = path.join(clusterDir, 'logs');
  const migrate = await startServiceProcess('migrate', { env, logDir: logs, log });
  if ((await migrate.exited) !== 0) throw new Error(`migrations failed: see ${migrate.logFile}`);

  /** How a version's workers start: their names, their settings over `env`, their build. */
  type Launch = { name: string; more: NodeJS.ProcessEnv; cwd?: string };
  /** Worker process `i` of a build: the checkout's, or a rollout's (`cwd`). */
  const startWorker = async ({ name, more, cwd }: Launch, i: number) => {
    const worker = await startServiceProcess('worker', {
      env: { ...env, ...more, WORKER_METRICS_PORT: String(await freePort(cwd ? 0 : 9463 + 2 * i)) },
      logDir: logs,
      log,
      name: `${name}${i}`,
      cwd,
    });
    stops.push(labelled(`worker ${name}${i}`, worker.stop));
    return worker;
  };
  /** One worker process per slot, of one build. */
  const startWorkers = async (launch: Launch) => {
    const started: ServiceProcess[] = [];
    for (let i = 1; i <= PROCESSES; i++) started.push(await startWorker(launch, i));
    return started;
  };
  // The running version's; a rollout replaces it.
  let launched: Launch = { name: 'worker-', more: {} };
  const workers = await startWorkers(launched);
  const apis: ServiceProcess[] = [];
  for (let i = 1; i <= PROCESSES; i++) {
    const api = await startServiceProcess('start', {
      env: {
        ...env,
        PORT: String(i === 1 ? firstPort : await freePort(firstPort + i - 1)),
        METRICS_PORT: String(await freePort(9462 + 2 * i)),
      },
      logDir: logs,
      log,
      name: `api-${i}`,
    });
    stops.push(labelled(`API ${i}`, api.stop));
    apis.push(api);
  }
  await Promise.all([...apis, ...workers].map((p) => p.ready));

  let running: WorkerSet = {
    version: {
      deploymentName: config.workerDeployment.deploymentName,
      buildId: buildIdOf(env.WORKFLOW_BUNDLE!, env.WORKER_BUILD_ID || undefined),
    },
    workers,
  };
  const temporalClient = new Client({
    connection: await Connection.connect({ address: temporal.address }),
    namespace: config.temporalNamespace,
  });
  stops.push(labelled('the rollout client', () => temporalClient.connection.close()));
  let rollouts = 0;
  const control = await serveClusterControl({
    roll: async (buildId, say) => {
      const tell = (line: string) => {
        log.info(line);
        say(line);
      };
      const n = ++rollouts;
      let next: Launch | undefined;
      running = await rollWorkers({
        client: temporalClient,
        from: running,
        dir: path.join(clusterDir, 'builds', String(n)),
        buildId,
        startWorkers: (made) => {
          next = {
            name: `worker-r${n}-`,
            more: {
              WORKFLOW_BUNDLE: made.bundle,
              WORKER_BUILD_ID: made.buildId,
              WORKER_SET_CURRENT: 'by-rollout',
            },
            cwd: made.cwd,
          };
          return startWorkers(next);
        },
        say: tell,
      });
      // The rolled version's, for a worker added from now on.
      launched = next!;
      publish();
      return versionName(running.version);
    },
    // One more of the running version's workers, as they were started (its bundle, build id and build).
    addWorker: async () => {
      const worker = await startWorker(launched, running.workers.length + 1);
      await worker.ready;
      running.workers.push(worker);
      publish();
      log.info('added a worker', { pid: worker.pid, version: versionName(running.version) });
      return { pid: worker.pid, metricsUrl: worker.metricsUrl!, version: versionName(running.version) };
    },
  });
  stops.push(labelled('the cluster control', control.close));

  const publish = () =>
    writeDevStack(dir, {
      pid: process.pid,
      engine: 'cluster',
      apiUrl: apis[0]!.url!,
      apiUrls: apis.map((a) => a.url!),
      publicUrl: config.publicUrl,
      databaseUrl: config.databaseUrl,
      temporalAddress: temporal.address,
      temporalUiUrl: temporal.uiUrl,
      temporalNamespace: config.temporalNamespace,
      temporalTaskQueue: config.temporalTaskQueue,
      children: {
        postgres: postgres.pid,
        temporal: temporal.server.pid(),
        apis: apis.map((a) => a.pid),
        workers: running.workers.map((w) => w.pid),
      },
      workerVersion: versionName(running.version),
      control: { url: control.url, token: control.token },
      ...mailOfStack(env, config.smtp),
    });
  publish();
  const db = await openDatabase(databaseUrl, { poolSize: 2 });
  const demo = await seedDemo(db).finally(() => db.destroy());
  process.stdout.write(
    stackBanner({
      apiUrls: apis.map((a) => a.url!),
      publicUrl: config.publicUrl,
      temporalUiUrl: temporal.uiUrl,
      temporalAddress: temporal.address,
      env,
      channels,
      dkim: config.smtp?.dkim,
      metrics: [
        ...apis.map((a, i): [string, string] => [`API ${i + 1} metrics`, a.metricsUrl!]),
        ...workers.map((w, i): [string, string] => [`Worker ${i + 1} metrics`, w.metricsUrl!]),
        ['Temporal metrics', temporal.metricsUrl],
      ],
      more: [
        `  Temporal server:  ${temporal.address}   (${shards} history shards; PostgreSQL ${postgres.url.replace(/\/\/[^@]*@/, '//')})`,
        `  Worker version:   ${versionName(running.version)}   (npm run cluster -- roll: the checkout as the next)`,
        `  Logs:             ${logs}`,
      ],
      dataDir: clusterDir,
      demo,
    }),
  );
  log.info('ready', {
    api_urls: apis.map((a) => a.url),
    temporal_ui_url: temporal.uiUrl ?? null,
  });
}

/** TEMPORAL_HISTORY_SHARDS: 4 here (a laptop), 512 in docker-compose; a power of two is not required. */
function historyShards(value: string | undefined): number {
  const shards = Number(value ?? 4);
  if (!Number.isInteger(shards) || shards < 1 || shards > 16_384)
    throw new ConfigError([`TEMPORAL_HISTORY_SHARDS must be a whole number from 1 to 16384 (got ${value})`]);
  return shards;
}

/** The two roles' passwords, made once per data folder (as compose's LEADS_DB_PASSWORD and TEMPORAL_DB_PASSWORD). */
function rolePasswords(): { leads: string; temporal: string } {
  const file = path.join(clusterDir, 'roles.json');
  if (!existsSync(file)) {
    const made = {
      leads: randomBytes(18).toString('base64url'),
      temporal: randomBytes(18).toString('base64url'),
    };
    writeFileSync(file, JSON.stringify(made) + '\n', { mode: 0o600 });
  }
  return JSON.parse(readFileSync(file, 'utf8')) as { leads: string; temporal: string };
}

/** The stack file of the cluster running on this data folder, if any. */
function readStack(): DevStack | undefined {
  const file = stackFile(dir);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DevStack) : undefined;
}

main().catch(async (err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err instanceof Error ? err.message : err);
  await stops.stopAll();
  process.exit(1);
});
