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
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime and cstime are fields 14-17 of /proc/<pid>/stat; 12-15 after the name.
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
    if (Number(pid) === apiPid) api += ticksToMs(utime! + stime!);
    else if (name.startsWith('postgres')) postgres += ticksToMs(utime! + stime! + cutime! + cstime!);
  }
  return { api_ms: api, postgres_ms: postgres };
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
