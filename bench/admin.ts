import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { createWorkspace } from '../domain/identity/operations/workspace-create';
import { withCleanup } from '../tooling/cleanup';
import { repoRoot } from '../tooling/paths';
import { parseIntFlags } from './lib/args';
import { asBenchOperator, openBenchDatabase } from './lib/bench-database';
import { benchLogger } from './lib/log';
import { formatTable } from './lib/report';
import { percentile } from './lib/stats';
import { testServices } from '../tooling/services';

const USAGE = 'npm run bench -- admin [--runs N]';
const benchDir = () => path.join(repoRoot(), '.data', 'bench', 'admin');
/** What an approver waits for `approval list`, on every call (the largest of the runs). */
const TARGET_MS = 1_000;

type Row = { key: string; label: string; command: string[]; env?: NodeJS.ProcessEnv; cacheOnly?: true };
type Timed = { median_ms: number; max_ms: number; runs_ms: number[] };

/**
 * The rows, on one Node: two floors (Node's start, and Node loading the PostgreSQL driver: the least a
 * CLI that talks to PostgreSQL costs), the CLI through its launcher (`node admin/launch.mjs`), the
 * command an approver types (npm in front), and, for comparison, the TypeScript entry under tsx as
 * `npm run admin` ran it before. On Node 22+ the launcher also runs without Node's compile cache,
 * which Node 20 lacks: the target must not depend on it.
 */
function rows(node: string, workspaceId: string): Row[] {
  const list = ['approval', 'list', '--workspace', workspaceId];
  const tsx = path.join(repoRoot(), 'node_modules', 'tsx', 'dist', 'cli.mjs');
  return [
    { key: 'floor_node', label: 'floor: node -e 0', command: [node, '-e', '0'] },
    { key: 'floor_pg', label: 'floor: node -e "require(\'pg\')"', command: [node, '-e', "require('pg')"] },
    { key: 'launcher', label: 'node admin/launch.mjs', command: [node, 'admin/launch.mjs', ...list] },
    {
      key: 'launcher_no_compile_cache',
      label: 'node admin/launch.mjs, no compile cache',
      command: [node, 'admin/launch.mjs', ...list],
      env: { NODE_DISABLE_COMPILE_CACHE: '1' },
      cacheOnly: true,
    },
    {
      key: 'npm',
      label: 'npm run -s admin -- approval list',
      command: ['npm', 'run', '-s', 'admin', '--', ...list],
    },
    { key: 'tsx_before', label: 'tsx admin/cli.ts (before)', command: [node, tsx, 'admin/cli.ts', ...list] },
  ];
}

/** One call, its wall time; a CLI call that fails or prints no JSON stops the bench. */
function timedRun(row: Row, env: NodeJS.ProcessEnv): number {
  const [command, ...args] = row.command;
  const started = performance.now();
  const r = spawnSync(command!, args, { cwd: repoRoot(), env: { ...env, ...row.env }, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`${row.label} exited ${r.status ?? r.signal}: ${r.stderr}`);
  if (row.key.startsWith('floor')) return ms;
  if (!Array.isArray(JSON.parse(r.stdout))) throw new Error(`${row.label} printed no list: ${r.stdout}`);
  return ms;
}

const round = (x: number) => Math.round(x * 10) / 10;
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/**
 * Every row on one Node: a warm-up call each (it builds dist/ if a source changed, fills the page and
 * compile caches), then `runs` rounds in which the rows take turns, so a slow moment of the machine
 * falls on all of them.
 */
function measureNode(node: string, workspaceId: string, env: NodeJS.ProcessEnv, runs: number) {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const major = Number(/^v(\d+)/.exec(version)?.[1]);
  const list = rows(node, workspaceId).filter((r) => !r.cacheOnly || major >= 22);
  // npm and the launcher run on this Node: npm's `node` shebang and scripts find it first on PATH.
  const onNode = { ...env, PATH: `${path.dirname(node)}${path.delimiter}${env.PATH ?? ''}` };
  for (const row of list) timedRun(row, onNode);
  const times = new Map(list.map((r) => [r.key, [] as number[]]));
  for (let i = 0; i < runs; i++) for (const row of list) times.get(row.key)!.push(timedRun(row, onNode));
  const timed = Object.fromEntries(
    list.map((r): [string, Timed] => {
      const ms = times.get(r.key)!;
      const sorted = Float64Array.from(ms).sort();
      return [
        r.key,
        { median_ms: round(percentile(sorted, 50)), max_ms: round(sorted.at(-1)!), runs_ms: ms.map(round) },
      ];
    }),
  );
  const npm = timed.npm!;
  const pg = timed.floor_pg!;
  return {
    version,
    major,
    labels: Object.fromEntries(list.map((r) => [r.key, r.label])),
    timed,
    ratio_npm_vs_floor_pg: ratio(npm.median_ms, pg.median_ms),
    ratio_npm_vs_floor_node: ratio(npm.median_ms, timed.floor_node!.median_ms),
    ratio_launcher_vs_floor_pg: ratio(timed.launcher!.median_ms, pg.median_ms),
    ratio_tsx_before_vs_launcher: ratio(timed.tsx_before!.median_ms, timed.launcher!.median_ms),
    target_met: npm.max_ms < TARGET_MS,
  };
}

/**
 * `npm run bench -- admin`: the wall time of `npm run -s admin -- approval list --workspace W`, the
 * call an approver makes many times a day, against a PostgreSQL holding a workspace, on the Node every
 * npm script runs (the Node 24 `npm ci` installs, .nvmrc's), against floors measured in the same run.
 * Progress on stderr; the table, then one JSON line with every figure, on stdout.
 */
export async function main(args: string[]) {
  const { runs } = parseIntFlags(args, { runs: 10 }, USAGE);
  const log = benchLogger('admin');
  mkdirSync(benchDir(), { recursive: true, mode: 0o755 });
  await withCleanup(log, async (stops) => {
    const { pg, db } = await openBenchDatabase(log, stops, {
      dataDir: path.join(benchDir(), 'pg'),
      fresh: true,
    });
    const workspace = await asBenchOperator(testServices(db), createWorkspace, {
      name: 'Admin CLI bench',
      timezone: 'Europe/London',
    });
    // What the CLI finds beside `npm run dev`; Temporal is never dialled by `approval list`.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: pg.url,
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
    };
    const lts = readFileSync(path.join(repoRoot(), '.nvmrc'), 'utf8').trim();
    const node = process.execPath;
    log.info(
      `${node}: a warm-up call per row (building dist/ first if a source changed), then ${runs} rounds`,
    );
    printReport([measureNode(node, workspace.id, env, runs)], runs, lts);
  });
}

function printReport(results: ReturnType<typeof measureNode>[], runs: number, lts: string) {
  const body = results.flatMap((r) =>
    Object.entries(r.timed).map(([key, t]) => [
      `${r.version}  ${r.labels[key]}`,
      t.median_ms.toFixed(1),
      t.max_ms.toFixed(1),
      key === 'floor_node' ? '-' : ratio(t.median_ms, r.timed.floor_node!.median_ms).toFixed(2),
      key.startsWith('floor') ? '-' : ratio(t.median_ms, r.timed.floor_pg!.median_ms).toFixed(2),
    ]),
  );
  console.log(
    `approval list, ${runs} calls per row after one warm-up, rows taking turns; ${cpus().length} CPUs, ` +
      `load ${loadavg()[0]!.toFixed(2)}\n`,
  );
  console.log(formatTable(['', 'median ms', 'max ms', 'vs node -e 0', "vs require('pg')"], body));
  for (const r of results)
    console.log(
      `\n${r.version}: npm run -s admin -- approval list, median ${r.timed.npm!.median_ms} ms, max ` +
        `${r.timed.npm!.max_ms} ms (target: every call < ${TARGET_MS} ms: ${r.target_met ? 'met' : 'MISSED'}); ` +
        `${r.ratio_npm_vs_floor_pg}x Node loading pg; tsx was ${r.ratio_tsx_before_vs_launcher}x the launcher`,
    );
  console.log(
    JSON.stringify({
      bench: 'admin',
      command: 'npm run -s admin -- approval list --workspace W',
      runs,
      cpus: cpus().length,
      load_1m: Math.round(loadavg()[0]! * 100) / 100,
      target_ms: TARGET_MS,
      lts_node: lts,
      by_node: Object.fromEntries(results.map((r) => [String(r.major), r])),
      target_met: results.every((r) => r.target_met),
    }),
  );
}
