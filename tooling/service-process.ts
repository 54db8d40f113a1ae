import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../infra/logger';
import { repoRoot } from './paths';
import { killOnExit, stopChild } from './processes';

/** A process of the service run from the production build, as `npm start` / `npm run worker` run it. */
export type ServiceProcess = {
  name: string;
  pid: number;
  /** The API's URL, or undefined for a worker. */
  url?: string;
  /** The Prometheus page. */
  metricsUrl?: string;
  logFile: string;
  /** Resolves when it serves (the API listens, the worker polls); rejects if it exits first. */
  ready: Promise<void>;
  /** Its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after a minute: in-flight requests and activities finish first. */
  stop: () => Promise<void>;
  /** A signal now, as a fault would send it. */
  kill: (signal: NodeJS.Signals) => void;
};

type Script = 'start' | 'worker' | 'migrate';

/** What each script logs once it serves; the migration is ready when it has exited. */
const READY: Record<Script, string | undefined> = {
  start: 'api listening',
  worker: 'worker running',
  migrate: undefined,
};

/**
 * The package.json script's command line, run without npm in between so that a signal reaches the
 * process itself: leading `NAME=value` words go into the environment, `node` is this Node. `fromSource`
 * runs the TypeScript the build compiles (`dist/worker/main.js` → `--import tsx worker/main.ts`) with
 * the script's Node flags and environment: a test then needs no build of the checkout.
 */
export function scriptCommand(
  script: Script,
  fromSource = false,
): { env: Record<string, string>; args: string[] } {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = pkg.scripts[script]!.trim().split(/\s+/);
  const env: Record<string, string> = {};
  while (words[0] && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  if (words.shift() !== 'node') throw new Error(`npm run ${script} does not start with node`);
  if (!fromSource) return { env, args: words };
  const entry = /^dist\/(.+)\.js$/.exec(words.at(-1) ?? '')?.[1];
  if (!entry) throw new Error(`npm run ${script} does not run a file of dist/`);
  return { env, args: [...words.slice(0, -1), '--import', 'tsx', `${entry}.ts`] };
}

/**
 * Starts `npm start`, `npm run worker` or `npm run migrate`'s command with `env`, its output appended
 * to `<logDir>/<name>.log`. An exit nobody asked for is logged with the last lines it wrote. `cwd` is a
 * folder holding another build (`<cwd>/dist`) than the checkout's; its modules come from the checkout's.
 * `fromSource` runs the checkout's TypeScript through tsx instead of its build (`scriptCommand`).
 */
export async function startServiceProcess(
  script: Script,
  opts: {
    env: NodeJS.ProcessEnv;
    logDir: string;
    log: Logger;
    name?: string;
    cwd?: string;
    fromSource?: boolean;
  },
): Promise<ServiceProcess> {
  const name = opts.name ?? script;
  const { env: scriptEnv, args } = scriptCommand(script, opts.fromSource);
  mkdirSync(opts.logDir, { recursive: true });
  const logFile = path.join(opts.logDir, `${name}.log`);
  const out = createWriteStream(logFile, { flags: 'a' });
  // A process group of its own, as the servers have: Ctrl+C reaches this process, which stops them in order.
  const child = spawn(process.execPath, args, {
    cwd: opts.cwd ?? repoRoot(),
    env: {
      ...opts.env,
      ...scriptEnv,
      ...(opts.cwd && { NODE_PATH: path.join(repoRoot(), 'node_modules') }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  killOnExit(child);
  let tail = '';
  let stopping = false;
  let onLine: ((line: string) => void) | undefined;
  let partial = '';
  const take = (d: Buffer) => {
    out.write(d);
    const text = partial + d.toString();
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      tail = (tail + line + '\n').slice(-3000);
      onLine?.(line);
    }
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      out.end();
      if (!stopping && script !== 'migrate')
        opts.log.warn(`${name} exited (${code ?? 'signal'}) without being asked to`, { log_file: logFile });
      resolve(code);
    }),
  );
  const marker = READY[script];
  const ready = new Promise<void>((resolve, reject) => {
    if (!marker) {
      void exited.then(() => resolve());
      return;
    }
    onLine = (line) => {
      if (line.includes(`"msg":"${marker}"`)) resolve();
    };
    void exited.then((code) =>
      reject(new Error(`${name} exited (${code ?? 'signal'}) before it served:\n${tail.trim()}`)),
    );
  });
  ready.catch(() => undefined);
  const port = script === 'start' ? opts.env.PORT : undefined;
  const metricsPort = script === 'start' ? opts.env.METRICS_PORT : opts.env.WORKER_METRICS_PORT;
  return {
    name,
    pid: child.pid!,
    url: port ? `http://127.0.0.1:${port}` : undefined,
    metricsUrl: metricsPort ? `http://127.0.0.1:${metricsPort}/metrics` : undefined,
    logFile,
    ready,
    exited,
    stop: async () => {
      stopping = true;
      await stopChild(child, 'SIGTERM', 60_000);
    },
    kill: (signal) => {
      stopping = true;
      child.kill(signal);
    },
  };
}
