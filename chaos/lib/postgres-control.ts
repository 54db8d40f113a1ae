import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../infra/logger';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../tooling/postgres';

/** The process's state letter from /proc (`Z` is a zombie: dead, waiting to be reaped), or undefined. */
function procState(pid: number): { state: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: the fields start after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: state!, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

const isRunning = (pid: number) => {
  const s = procState(pid);
  return s !== undefined && s.state !== 'Z';
};

/** Every descendant of `root`, found by scanning /proc (pgrep -P would need one call per level). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const s = procState(pid);
    if (!s) continue;
    children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

const signal = (pid: number, sig: NodeJS.Signals) => {
  try {
    process.kill(pid, sig);
  } catch {
    // Gone already: nothing to signal.
  }
};

/**
 * The embedded PostgreSQL under fault: killed (SIGKILL to the postmaster, as the OOM killer
 * would) and restarted on the same port and data directory, or frozen (SIGSTOP to the postmaster and
 * every backend, as a stalled VM or disk would look) and thawed.
 */
export class PostgresControl {
  private frozen: number[] = [];
  /** Backends still alive 10 s after their postmaster was killed, which the harness then killed. */
  orphansKilled = 0;

  constructor(
    private current: EmbeddedPostgres,
    private readonly dataDir: string,
    private readonly database: string,
    private readonly log: Logger,
    /** Server settings it was started with, kept across restarts. */
    private readonly settings?: Record<string, string>,
  ) {}

  get url() {
    return this.current.url;
  }

  /** SIGKILL to the postmaster; resolves once its backends have noticed and gone too. */
  async kill(): Promise<void> {
    const backends = descendants(this.current.pid);
    signal(this.current.pid, 'SIGKILL');
    const deadline = Date.now() + 10_000;
    while ([this.current.pid, ...backends].some(isRunning) && Date.now() < deadline) await sleep(50);
    const left = backends.filter(isRunning);
    if (left.length > 0) {
      // A backend that outlives its postmaster keeps the shared memory, and PostgreSQL will not start.
      this.log.warn(`${left.length} PostgreSQL backends outlived their postmaster by 10 s; killing them`);
      this.orphansKilled += left.length;
      for (const pid of left) signal(pid, 'SIGKILL');
      while (left.some(isRunning)) await sleep(50);
    }
  }

  /** Starts it again where it was: same data directory, same port, so every client's URL still works. */
  async restart(): Promise<void> {
    this.current = await startEmbeddedPostgres({
      dataDir: this.dataDir,
      database: this.database,
      port: this.current.port,
      log: this.log,
      settings: this.settings,
    });
  }

  /** SIGSTOP the postmaster first (so it forks nothing new), then every backend it has. */
  freeze(): number {
    signal(this.current.pid, 'SIGSTOP');
    this.frozen = [this.current.pid, ...descendants(this.current.pid)];
    for (const pid of this.frozen) signal(pid, 'SIGSTOP');
    return this.frozen.length;
  }

  thaw(): void {
    for (const pid of [...this.frozen].reverse()) signal(pid, 'SIGCONT');
    this.frozen = [];
  }

  /** The run's last stop: thawed first, or a fast shutdown would wait on stopped processes. */
  async stop(): Promise<void> {
    this.thaw();
    await this.current.stop();
  }
}
