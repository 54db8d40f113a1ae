import { readFileSync } from 'node:fs';

export type ProcMemory = { rss_mib: number; hwm_mib: number };

const MIB = 1024 * 1024;

/** Resident set now (VmRSS) and its peak (VmHWM) of a process, from /proc (Linux only). */
export function procMemory(pid: number): ProcMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
    return Number(m[1]);
  };
  const mib = (k: number) => Math.round(((k * 1024) / MIB) * 10) / 10;
  return { rss_mib: mib(kib('VmRSS')), hwm_mib: mib(kib('VmHWM')) };
}
