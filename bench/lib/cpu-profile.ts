import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../tooling/paths';

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
};
type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

export type CpuShare = { name: string; ms: number; share: number };
export type CpuBreakdown = { busy_ms: number; by_area: CpuShare[]; by_function: CpuShare[] };

/**
 * Where a sampled function lives: a package under node_modules, a folder of ours (api/, domain/...),
 * a Node built-in module, or V8's own buckets (garbage collector, program).
 */
function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const file = url.replace(/^file:\/\//, '');
  const rel = path.relative(repoRoot(), file);
  return rel.startsWith('..') ? file : (rel.split(path.sep)[0] ?? rel);
}

const top = (totals: Map<string, number>, busy: number, n: number): CpuShare[] =>
  [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({
      name,
      ms: Math.round(us / 1000),
      share: Math.round((us / busy) * 1000) / 1000,
    }));

/** Self time of a `--cpu-prof` profile by area and by function, idle time left out. */
export function cpuBreakdown(file: string, n = 15): CpuBreakdown {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') return;
    const us = profile.timeDeltas[i] ?? 0;
    busy += us;
    const area = areaOf(frame.url, frame.functionName);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const fn = `${frame.functionName || '(anonymous)'} ${area}:${frame.lineNumber + 1}`;
    functions.set(fn, (functions.get(fn) ?? 0) + us);
  });
  return {
    busy_ms: Math.round(busy / 1000),
    by_area: top(areas, busy, n),
    by_function: top(functions, busy, n),
  };
}
