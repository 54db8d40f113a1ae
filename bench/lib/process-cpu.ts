import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, ms) used so far by the API process and by every PostgreSQL process, read from
 * /proc. Backends that exit between two readings take their time with them, so a phase's figure
 * is read with the same pool of connections open at both ends.
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
    // utime and stime are fields 14 and 15 of /proc/<pid>/stat; 12 and 13 after the name.
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
    if (Number(pid) === apiPid) api += ms;
    else if (name.startsWith('postgres')) postgres += ms;
  }
  return { api_ms: api, postgres_ms: postgres };
}
