import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  machineBusyMs,
  postgresProcesses,
  processTreeCpuMs,
  readProcStat,
  threadCpuMs,
  type ProcStat,
} from './process-cpu';

/** A process whose CPU is read: alone (its threads included), or with every descendant (`tree`). */
export type Metered = { pid: number; tree?: boolean };

export type ProcessCost = {
  ms_per_delivery: number;
  /** Its CPU over the window's wall time: 1 is one core busy all along. */
  cores: number;
  /** The thread that used the most, in cores: a Node process stops at 1 on its main thread. Not for a tree. */
  busiest_thread: { name: string; cores: number } | null;
};

export type CpuCosts = {
  seconds: number;
  processes: Record<string, ProcessCost>;
  /** Every core's busy time (/proc/stat) per delivery, and its share of all the cores' time. */
  machine: { ms_per_delivery: number; busy_share: number; cores: number };
  /** This run's other processes: every descendant of the bench process not named (a build, a tool). */
  run_other_ms_per_delivery: number;
  /**
   * The machine's busy time outside this run's processes: other people's work on the machine, and
   * the kernel's interrupts (loopback traffic among them). Large when the run was disturbed.
   */
  outside_run_ms_per_delivery: number;
  /**
   * PostgreSQL's CPU ms per delivery by the database each backend serves (`postgresProcesses`);
   * `(unattributed)` is what backends that exited used in their last second.
   */
  postgres_by_database: Record<string, number>;
};

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
/**
 * PostgreSQL's processes read every second until `per`: a pool closes idle connections, and a
 * backend that exits takes its CPU into the postmaster's children's, where no database can be told.
 */
function postgresSampler(postmaster: number) {
  const first = postgresProcesses(postmaster);
  const last = new Map(first);
  const tree = processTreeCpuMs(postmaster);
  const sample = () => {
    for (const [key, p] of postgresProcesses(postmaster)) last.set(key, p);
  };
  const timer = setInterval(sample, 1000);
  timer.unref();
  return (deliveries: number): Record<string, number> => {
    clearInterval(timer);
    sample();
    const ms: Record<string, number> = {};
    for (const [key, p] of last) ms[p.serves] = (ms[p.serves] ?? 0) + p.ms - (first.get(key)?.ms ?? 0);
    ms['(unattributed)'] = processTreeCpuMs(postmaster) - tree - Object.values(ms).reduce((a, b) => a + b, 0);
    return Object.fromEntries(Object.entries(ms).map(([db, x]) => [db, round(x / deliveries, 3)]));
  };
}

// A process's own line counts its exited threads too; the sum of its live threads' would not.
const cpuMsOf = (p: Metered) =>
  p.tree ? processTreeCpuMs(p.pid) : (readProcStat(`/proc/${p.pid}/stat`)?.ms ?? NaN);

function busiest(pid: number, before: Map<number, ProcStat>, after: Map<number, ProcStat>, wallMs: number) {
  let best: { name: string; ms: number } | null = null;
  for (const [tid, t] of after) {
    const ms = t.ms - (before.get(tid)?.ms ?? 0);
    if (!best || ms > best.ms) best = { name: tid === pid ? `${t.name} (main)` : t.name, ms };
  }
  return best && { name: best.name, cores: round(best.ms / wallMs) };
}

/**
 * Readings of the named processes' CPU (user + system, from /proc), their threads', PostgreSQL's by
 * database (`postmaster`'s children) and the whole machine's, taken now; `per(deliveries)` divides what each spent since by the deliveries made.
 */
export function processMeter(named: Record<string, Metered>, postmaster: number) {
  const started = performance.now();
  const postgres = postgresSampler(postmaster);
  const machine = machineBusyMs();
  const run = processTreeCpuMs(process.pid);
  const read = () =>
    Object.fromEntries(
      Object.entries(named).map(([name, p]) => [name, { ms: cpuMsOf(p), threads: threadCpuMs(p.pid) }]),
    );
  const before = read();
  return {
    per: (deliveries: number): CpuCosts => {
      const wallMs = performance.now() - started;
      const after = read();
      const machineMs = machineBusyMs() - machine;
      const runMs = processTreeCpuMs(process.pid) - run;
      const n = Math.max(1, deliveries);
      let namedMs = 0;
      const processes = Object.fromEntries(
        Object.entries(after).map(([name, a]) => {
          const ms = a.ms - before[name]!.ms;
          namedMs += ms;
          const cost: ProcessCost = {
            ms_per_delivery: round(ms / n, 3),
            cores: round(ms / wallMs),
            busiest_thread: named[name]!.tree
              ? null
              : busiest(named[name]!.pid, before[name]!.threads, a.threads, wallMs),
          };
          return [name, cost];
        }),
      );
      return {
        seconds: round(wallMs / 1000),
        processes,
        machine: {
          ms_per_delivery: round(machineMs / n, 3),
          busy_share: round(machineMs / (wallMs * cpus().length)),
          cores: cpus().length,
        },
        run_other_ms_per_delivery: round((runMs - namedMs) / n, 3),
        outside_run_ms_per_delivery: round((machineMs - runMs) / n, 3),
        postgres_by_database: postgres(n),
      };
    },
  };
}
