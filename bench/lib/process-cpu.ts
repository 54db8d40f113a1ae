import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;
const ticksToMs = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;

/**
 * CPU time (user + system, ms) used so far by the API process and by PostgreSQL, read from /proc.
 * PostgreSQL's is every live postgres process's, plus what its exited processes used (the postmaster
 * reaps them, and /proc counts their time as its children's): a backend, autovacuum or parallel worker
 * that exits between two readings moves its time from one sum to the other instead of taking it along.
 */
export function processCpu(apiPid: number): { api_ms: number; postgres_ms: number } {
  let api = 0;
  let postgres = 0;
  for (const { pid, name, ms, children_ms } of allProcesses()) {
    if (pid === apiPid) api += ms;
    else if (name.startsWith('postgres')) postgres += ms + children_ms;
  }
  return { api_ms: api, postgres_ms: postgres };
}

/** One process's (or thread's) line of /proc: its name, parent, own CPU ms and its reaped children's. */
export type ProcStat = {
  pid: number;
  name: string;
  ppid: number;
  ms: number;
  children_ms: number;
  /** When it started, in clock ticks after boot: with the pid, it names one process. */
  started: number;
};

/** /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat, or undefined when it exited while we looked. */
export function readProcStat(file: string): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // ppid is field 4; utime, stime, cutime and cstime are fields 14-17, starttime 22; fields 3.. follow the name.
  const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
  return {
    pid: Number(stat.slice(0, stat.indexOf(' '))),
    name,
    ppid: Number(fields[1]),
    ms: ticksToMs(utime! + stime!),
    children_ms: ticksToMs(cutime! + cstime!),
    started: Number(fields[19]),
  };
}

const allProcesses = (): ProcStat[] =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((pid) => readProcStat(`/proc/${pid}/stat`) ?? []);

/**
 * CPU ms of a process and every descendant, with what the exited ones used (their parent reaped
 * them, so /proc counts it as that parent's children's): PostgreSQL's postmaster and its backends,
 * where backends come and go, without counting another PostgreSQL on the same machine.
 */
export function processTreeCpuMs(root: number): number {
  const byParent = new Map<number, ProcStat[]>();
  let top: ProcStat | undefined;
  for (const p of allProcesses()) {
    if (p.pid === root) top = p;
    byParent.set(p.ppid, [...(byParent.get(p.ppid) ?? []), p]);
  }
  if (!top) return NaN;
  let ms = 0;
  for (const queue = [top]; queue.length > 0;) {
    const p = queue.pop()!;
    ms += p.ms + p.children_ms;
    queue.push(...(byParent.get(p.pid) ?? []));
  }
  return ms;
}

/** CPU ms of each thread of a process, by thread id: which one is the busy one. */
export function threadCpuMs(pid: number): Map<number, ProcStat> {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return new Map();
  }
  return new Map(
    tids.flatMap((tid) => readProcStat(`/proc/${pid}/task/${tid}/stat`) ?? []).map((t) => [t.pid, t]),
  );
}

/**
 * CPU time (ms, all cores) the whole machine has spent busy since boot: /proc/stat's first line less
 * idle and iowait. Two readings around a phase give what every process together spent on it: the
 * server under test, PostgreSQL, the load generator and the kernel's side of loopback.
 */
export function machineBusyMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  // cpu user nice system idle iowait irq softirq steal (guest time is already inside user).
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return ticksToMs(user! + nice! + system! + irq! + softirq! + steal!);
}

/** Readings to take around a phase; `per` divides what was spent between them by its requests. */
export function cpuMeter() {
  const machine = machineBusyMs();
  const postgres = processCpu(-1).postgres_ms;
  return {
    per: (requests: number) => {
      const round = (ms: number) => Math.round((ms / Math.max(1, requests)) * 1000) / 1000;
      return {
        cpu_ms_per_request: round(machineBusyMs() - machine),
        postgres_cpu_ms_per_request: round(processCpu(-1).postgres_ms - postgres),
      };
    },
  };
}

/** A PostgreSQL process's CPU ms and what it serves, by `pid:start time` (a pid can be reused). */
export type PostgresProcess = { serves: string; ms: number };

/**
 * The postmaster's own CPU (`(postmaster)`) and each child's, by what it serves, from its process title: a
 * backend's (`postgres: user database host(port) state`) is its database; the others' (checkpointer,
 * WAL writer, autovacuum launcher) `(background)`.
 */
export function postgresProcesses(postmaster: number): Map<string, PostgresProcess> {
  const out = new Map<string, PostgresProcess>();
  for (const p of allProcesses()) {
    if (p.pid === postmaster) out.set(`${p.pid}:${p.started}`, { serves: '(postmaster)', ms: p.ms });
    if (p.ppid !== postmaster) continue;
    let title: string;
    try {
      title = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    } catch {
      continue; // exited while we looked
    }
    const backend = /^postgres: \S+ (\S+) \S+\(\d+\)/.exec(title);
    out.set(`${p.pid}:${p.started}`, {
      serves: backend ? backend[1]! : '(background)',
      ms: p.ms + p.children_ms,
    });
  }
  return out;
}
