import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

export { freePort } from '../infra/free-port';

export const isAlive = (pid: number | undefined): boolean => {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const servers = new Set<ChildProcess>();
let killedOnExit = false;

/** Makes sure `child` dies with this process when nothing stopped it first. */
export function killOnExit(child: ChildProcess): void {
  if (!killedOnExit) {
    killedOnExit = true;
    process.on('exit', () => {
      for (const c of servers) c.kill('SIGKILL');
    });
  }
  servers.add(child);
  child.once('exit', () => servers.delete(child));
}

/**
 * Starts a server this process stops in order (PostgreSQL, Temporal, MailDev), in a process group of
 * its own: Ctrl+C in a terminal signals the whole foreground group, and a server that got it directly
 * would stop at once, under the worker still draining into it. Whatever is still running when this
 * process exits without stopping it (a stop cut off after a minute) is killed with it. Its stderr is
 * piped, for what it says when it fails; its stdout goes to `stdout` (a log file's descriptor) if given.
 */
export function spawnServer(
  command: string,
  args: string[],
  options: { uid?: number; gid?: number; env?: NodeJS.ProcessEnv; cwd?: string; stdout?: number } = {},
): ChildProcessByStdio<null, null, Readable> {
  const { stdout, ...rest } = options;
  const child = spawn(command, args, {
    ...rest,
    stdio: ['ignore', stdout ?? 'ignore', 'pipe'],
    detached: true,
  }) as ChildProcessByStdio<null, null, Readable>;
  killOnExit(child);
  return child;
}

/** Signals a child and waits for it to exit; escalates to SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Polls `probe` until it resolves truthy or the deadline passes. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  everyMs = 100,
) {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${lastError instanceof Error ? `: ${lastError.message}` : ''}`,
  );
}
