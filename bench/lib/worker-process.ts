import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { repoRoot } from '../../tooling/paths';
import { stopChild } from '../../tooling/processes';
import { buildForProduction } from './children';
import { serviceEnv } from './service-env';

export type WorkerProcess = {
  pid: number;
  /** Why the worker is gone, or undefined while it runs: every wait checks it, so a crash fails fast. */
  exitReason: () => string | undefined;
  stop: () => Promise<void>;
};

export type WorkerSettings = {
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  secretsKey: Buffer;
  /** More settings for the worker (an SMTP server, say). */
  env?: Record<string, string>;
  /** More Node flags for the worker (`--cpu-prof`, say), after BENCH_WORKER_FLAGS's. */
  nodeFlags?: string[];
};

// worker/run.ts logs this once the worker polls and the relay listens.
const READY = /"msg":"worker running"/;
// Bundling the workflows takes a while on a busy 2-core machine.
const READY_TIMEOUT_MS = 180_000;
let built = false;

/**
 * The production worker entry (dist/worker/main.js, built first: Temporal worker + outbox relay) in a process of its
 * own, so its memory can be read from /proc and it never shares an event loop with the load.
 * Its log lines join our stderr.
 */
export async function startWorkerProcess(s: WorkerSettings): Promise<WorkerProcess> {
  // Once per bench run: every worker it starts runs the same build, and tsc takes a while here.
  if (!built) {
    buildForProduction();
    built = true;
  }
  // The worker's memory settings, as `npm run worker` and docker-compose.yml start it (bench/README.md).
  const child = spawn(
    process.execPath,
    [
      '--max-old-space-size=512',
      '--max-semi-space-size=2',
      '--heap-growing-percent=10',
      // More V8 or Node flags for the worker, to compare settings within one hour (bench/README.md).
      ...(process.env.BENCH_WORKER_FLAGS?.split(' ').filter(Boolean) ?? []),
      ...(s.nodeFlags ?? []),
      'dist/worker/main.js',
    ],
    {
      cwd: repoRoot(),
      env: serviceEnv({
        NODE_ENV: 'production',
        DATABASE_URL: s.databaseUrl,
        TEMPORAL_ADDRESS: s.temporalAddress,
        TEMPORAL_TASK_QUEUE: s.taskQueue,
        SECRETS_KEY: s.secretsKey.toString('base64'),
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        // The receiver is on loopback; a production build refuses that unless told, as here, on purpose.
        WEBHOOK_ALLOW_PRIVATE_TARGETS_IN_PRODUCTION: 'true',
        // Info is one line at start-up (the readiness signal); per-delivery logging would cost CPU.
        LOG_LEVEL: 'info',
        MALLOC_ARENA_MAX: '2',
        ...s.env,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let exitReason: string | undefined;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => {
      exitReason = `the worker exited (${code ?? signal})`;
      reject(new Error(exitReason));
    }),
  );
  exited.catch(() => undefined);
  for (const stream of [child.stdout, child.stderr])
    createInterface({ input: stream }).on('line', (line) => {
      if (READY.test(line)) markReady();
      process.stderr.write(`[worker] ${line}\n`);
    });
  const stop = () => stopChild(child, 'SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error('timed out waiting for the worker to start')),
      READY_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([ready, exited, timeout]);
  } catch (err) {
    await stop();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return { pid: child.pid!, exitReason: () => exitReason, stop };
}
