import { spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { repoRoot } from '../../tooling/paths';
import { faultHookArgs } from '../../tooling/fault-hook-args';
import { stopChild } from '../../tooling/processes';

export type Exit = { code: number | null; signal: NodeJS.Signals | null; at: number };

export type Child = {
  pid: number;
  /** Settles when the process has exited, however it went. */
  exit: Promise<Exit>;
  exited: () => Exit | undefined;
  /** Resolves when a line of its output matches; rejects if it exits first. */
  lineMatching: (pattern: RegExp, timeoutMs: number) => Promise<void>;
  kill: (signal: NodeJS.Signals) => void;
  /** SIGTERM, SIGKILL after 15 s: the graceful stop an orchestrator gives. */
  stop: () => Promise<void>;
};

const logs = new Map<string, WriteStream>();
const logTo = (file: string) => {
  let stream = logs.get(file);
  if (!stream) logs.set(file, (stream = createWriteStream(file, { flags: 'a' })));
  return stream;
};

/** Closes the log files; the last thing a run does. */
export const closeLogs = async () => {
  await Promise.all([...logs.values()].map((s) => new Promise<void>((resolve) => s.end(() => resolve()))));
  logs.clear();
};

/**
 * Runs a TypeScript entry point (`node --import tsx <entry>`, with the fault hook preloaded) as production runs the built one: a
 * process of its own that can be killed, frozen and restarted. Its output goes to `logFile` (the
 * worker says a line per delivery it could not start while Temporal is down: too much for stderr).
 */
export function spawnEntry(name: string, entry: string, env: NodeJS.ProcessEnv, logFile: string): Child {
  // The fault hook is inert unless a fault's variable (API_CRASH_AFTER_COMMIT, RELAY_CRASH_AT) is set.
  const child = spawn(process.execPath, ['--import', 'tsx', ...faultHookArgs(), entry], {
    cwd: repoRoot(),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = logTo(logFile);
  log.write(`--- ${new Date().toISOString()} ${name} started, pid ${child.pid}\n`);
  const watchers = new Set<(line: string) => void>();
  for (const stream of [child.stdout, child.stderr])
    createInterface({ input: stream }).on('line', (line) => {
      log.write(line + '\n');
      for (const w of watchers) w(line);
    });
  let exitInfo: Exit | undefined;
  const exit = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal, at: Date.now() };
      log.write(`--- ${new Date().toISOString()} ${name} exited (${code ?? signal})\n`);
      resolve(exitInfo);
    }),
  );
  return {
    pid: child.pid!,
    exit,
    exited: () => exitInfo,
    lineMatching: (pattern, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        let watcher: (line: string) => void = () => undefined;
        const done = (err?: Error) => {
          clearTimeout(timer);
          watchers.delete(watcher);
          if (err) reject(err);
          else resolve();
        };
        const timer = setTimeout(
          () => done(new Error(`${name}: no line matching ${pattern} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        watcher = (line) => {
          if (pattern.test(line)) done();
        };
        watchers.add(watcher);
        void exit.then((e) => done(new Error(`${name} exited (${e.code ?? e.signal}) while starting`)));
      }),
    kill: (signal) => {
      if (!exitInfo) child.kill(signal);
    },
    stop: () => stopChild(child, 'SIGTERM'),
  };
}
