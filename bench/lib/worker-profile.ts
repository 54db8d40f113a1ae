import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../infra/logger';
import { createStops, labelled, type Stops } from '../../tooling/cleanup';
import { repoRoot } from '../../tooling/paths';
import { bundleModules, cpuByPart, partsOf, type ThreadParts, type WorkerThread } from './cpu-parts';
import type { DeliveryFigures } from './delivery-check';
import { pathThroughput, warmUp } from './path-phases';
import { readProcStat, threadCpuMs } from './process-cpu';
import { formatTable } from './report';
import { benchDir, startWebhookStack } from './webhook-stack';

export type PartCost = {
  thread: WorkerThread;
  part: string;
  ms_per_delivery: number;
  /** Of the profiled worker's CPU per delivery. */
  share: number;
  /** The functions with the most self time in it. */
  top: { fn: string; ms_per_delivery: number }[];
};

/** A worker's CPU ms per delivery (/proc) by thread: its two JavaScript threads, and the rest by kind. */
export type WorkerThreadsCpu = {
  total: number;
  main: number;
  workflow: number;
  others: Record<string, number>;
};

export type WorkerCpuByPart = {
  /** The throughput phase again, on a stack of its own, with its worker under `--cpu-prof`. */
  run: Pick<DeliveryFigures, 'events' | 'received' | 'lost' | 'duplicates' | 'seconds' | 'per_second'>;
  profiled: WorkerThreadsCpu;
  /**
   * The same readings around the run's (unprofiled) throughput phase. Both windows are the whole
   * `pathThroughput` call, its 11 s idle reading before the commits included, so the total is a little
   * more than that phase's own `worker 1` figure (the worker's pollers and relay, idle).
   */
  unprofiled: WorkerThreadsCpu;
  /** The profile's busy (not idle) time per delivery: wall time, so more than CPU on a busy machine. */
  sampled_ms_per_delivery: Record<WorkerThread, number>;
  /** Each JavaScript thread's CPU split in the proportions of its samples (cpu-parts.ts). */
  parts: PartCost[];
  profile_dir: string;
};

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** What a thread that is not one of the two JavaScript threads does, by its name in /proc (15 bytes). */
const THREAD_KINDS: [RegExp, string][] = [
  [/^v8:ProfEvntProc$/, "the profiler's own threads (v8:ProfEvntProc)"],
  [/^V8Worker$/, 'V8 platform workers (concurrent GC, compiling)'],
  [/^(tokio-runtime-w|workflow-proces|temporal-real-s)$/, 'Temporal core, Rust (tokio, workflow-processing)'],
  [/^libuv-worker$/, 'the libuv pool'],
];
const ENDED = "threads that ended in the phase (runInContext's watchdogs)";

/**
 * Readings of a worker process's CPU and its threads' now; `per(deliveries)` divides what each spent
 * since. Node names a worker_threads thread `WorkerThread`: the busiest one runs the workflows. Threads
 * that ended meanwhile (a watchdog per sandbox call) are in the process's total only.
 */
export function workerThreadsMeter(pid: number) {
  const procMs = () => readProcStat(`/proc/${pid}/stat`)?.ms ?? NaN;
  const total = procMs();
  const before = threadCpuMs(pid);
  return {
    per: (deliveries: number): WorkerThreadsCpu => {
      const n = Math.max(1, deliveries);
      const spent = [...threadCpuMs(pid)].map(([tid, t]) => ({
        tid,
        name: t.name,
        ms: t.ms - (before.get(tid)?.ms ?? 0),
      }));
      const main = spent.find((t) => t.tid === pid);
      const workflow = spent
        .filter((t) => t.name === 'WorkerThread')
        .reduce<(typeof spent)[number] | undefined>((a, b) => (a && a.ms >= b.ms ? a : b), undefined);
      if (!main || !workflow) throw new Error(`worker ${pid}: no main thread or no WorkerThread in /proc`);
      const others: Record<string, number> = {};
      const add = (label: string, ms: number) => (others[label] = round((others[label] ?? 0) + ms / n));
      for (const t of spent)
        if (t !== main && t !== workflow)
          add(THREAD_KINDS.find(([re]) => re.test(t.name))?.[1] ?? `threads named ${t.name}`, t.ms);
      const totalMs = procMs() - total;
      add(ENDED, totalMs - spent.reduce((sum, t) => sum + t.ms, 0));
      return {
        total: round(totalMs / n),
        main: round(main.ms / n),
        workflow: round(workflow.ms / n),
        others,
      };
    },
  };
}

/**
 * `--profile-worker`: the throughput phase again, after every other dev-server phase and on a fresh
 * stack of its own, so the profiler slows none of them. Its worker runs under `--cpu-prof` (Node
 * writes a profile per thread, the workflow thread's too, when the worker exits on SIGTERM). Each
 * JavaScript thread's CPU in the phase (/proc) is divided among the parts in the proportions of its
 * samples in the phase (cpu-parts.ts); the other threads' CPU is given by kind.
 */
export async function profiledWorker(
  log: Logger,
  outer: Stops,
  events: number,
  unprofiled: WorkerThreadsCpu,
): Promise<WorkerCpuByPart> {
  const dir = path.join(benchDir(), 'worker-profile');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // A bundle of our own, kept beside the profiles: the workflow thread's frames are lines in it, and
  // the worker deletes the one it builds itself. dist/ is the dev stack's worker's build.
  const bundle = path.join(dir, 'workflows.js');
  const built = spawnSync(process.execPath, ['dist/worker/bundle-workflows.js', bundle], {
    cwd: repoRoot(),
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`bundling the workflows failed: ${built.stderr}`);

  const stops = createStops(log);
  outer.push(labelled('the profiled worker stack', stops.stopAll));
  log.info(`profiled worker: the throughput phase again, the worker under --cpu-prof (${dir})`);
  const s = await startWebhookStack(log, stops, 'dev', undefined, {
    env: { WORKFLOW_BUNDLE: bundle },
    nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  });
  const pid = s.worker.pid;
  await warmUp(s, log);
  const fromUs = nowUs();
  const meter = workerThreadsMeter(pid);
  const { result } = await pathThroughput(s, events, log);
  const profiled = meter.per(result.received);
  const toUs = nowUs();
  // SIGTERM: the worker shuts down and exits, and Node writes the profiles as it does.
  await s.removeWorker(s.worker);
  await stops.stopAll();

  const { parts, sampled } = splitByPart(dir, pid, { fromUs, toUs }, profiled, result.received);
  const { events: e, received, lost, duplicates, seconds, per_second } = result;
  return {
    run: { events: e, received, lost, duplicates, seconds, per_second },
    profiled,
    unprofiled,
    sampled_ms_per_delivery: sampled,
    parts,
    profile_dir: path.relative(repoRoot(), dir),
  };
}

/**
 * The worker's profiles (one per thread, in `dir` with its workflow bundle) split by part: each
 * JavaScript thread's CPU per delivery (`cpu`, from /proc) in the proportions of its samples in the
 * window (µs of V8's clock, which is CLOCK_MONOTONIC, as `process.hrtime` is).
 */
function splitByPart(
  dir: string,
  pid: number,
  window: { fromUs: number; toUs: number },
  cpu: WorkerThreadsCpu,
  deliveries: number,
) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.`));
  // Node names each file CPU.<date>.<time>.<pid>.<thread id>.<n>.cpuprofile; thread 0 is the main one.
  const threadOf = (f: string): WorkerThread => (/\.\d+\.0\.\d+\.cpuprofile$/.test(f) ? 'main' : 'workflow');
  if (!files.some((f) => threadOf(f) === 'main') || !files.some((f) => threadOf(f) === 'workflow'))
    throw new Error(
      `the profiled worker wrote ${files.length} profiles, not one per thread: did it exit cleanly?`,
    );
  const modules = bundleModules(path.join(dir, 'workflows.js'));
  const n = Math.max(1, deliveries);
  const parts: PartCost[] = [];
  const sampled = {} as Record<WorkerThread, number>;
  for (const thread of ['workflow', 'main'] as const) {
    const samples = files
      .filter((f) => threadOf(f) === thread)
      .map((f) => cpuByPart(path.join(dir, f), thread, window, modules))
      .reduce(mergeParts);
    sampled[thread] = round(samples.busy_us / 1000 / n);
    // Sampled time runs ahead of CPU time while the thread waits for a core or blocks: scale to /proc's.
    const msOf = (us: number) => round((us / samples.busy_us) * cpu[thread]);
    for (const part of partsOf(thread)) {
      const us = samples.parts.get(part) ?? 0;
      const top = [...(samples.functions.get(part) ?? [])]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([fn, fnUs]) => ({ fn, ms_per_delivery: msOf(fnUs) }));
      parts.push({ thread, part, ms_per_delivery: msOf(us), share: round(msOf(us) / cpu.total), top });
    }
  }
  return { parts, sampled };
}

function mergeParts(a: ThreadParts, b: ThreadParts): ThreadParts {
  const add = <K>(into: Map<K, number>, from: Map<K, number>) => {
    for (const [k, us] of from) into.set(k, (into.get(k) ?? 0) + us);
    return into;
  };
  const functions = new Map(a.functions);
  for (const [part, fns] of b.functions) functions.set(part, add(new Map(functions.get(part)), fns));
  return { busy_us: a.busy_us + b.busy_us, parts: add(new Map(a.parts), b.parts), functions };
}

/** The table of `--profile-worker`: by thread, each JavaScript thread by part, beside the unprofiled run. */
export function printWorkerCpuByPart(w: WorkerCpuByPart) {
  const { run, profiled: p, unprofiled: u } = w;
  const ms = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(3));
  const share = (x: number) => `${((x / p.total) * 100).toFixed(1)}%`;
  const thread = (label: string, x: number, y: number) => [label, ms(x), share(x), ms(y)];
  const partsOf = (t: WorkerThread) =>
    w.parts
      .filter((q) => q.thread === t)
      .map((q) => [`  ${q.part}`, ms(q.ms_per_delivery), share(q.ms_per_delivery), '']);
  const others = Object.keys({ ...u.others, ...p.others })
    .filter((k) => (p.others[k] ?? 0) > 0 || (u.others[k] ?? 0) > 0)
    .map((k) => [`  ${k}`, ms(p.others[k] ?? 0), share(p.others[k] ?? 0), ms(u.others[k] ?? 0)]);
  console.log(
    `\nthe worker's CPU per delivery by part: the throughput phase again on a fresh stack (${run.received} ` +
      `deliveries, ${run.per_second}/s), the worker under --cpu-prof. Profiling slows it: ${p.total} ms a ` +
      `delivery against ${u.total} ms unprofiled, read the same way around this run's throughput phase ` +
      `(${(p.total / u.total).toFixed(2)}x). CPU from /proc; a JavaScript thread's split in the proportions of ` +
      `its samples (sampled busy time: workflow ${w.sampled_ms_per_delivery.workflow}, main ` +
      `${w.sampled_ms_per_delivery.main} ms a delivery); profiles in ${w.profile_dir}\n`,
  );
  console.log(
    formatTable(
      ['', 'ms/delivery', 'share', 'unprofiled'],
      [
        thread('workflow thread (workflow tasks)', p.workflow, u.workflow),
        ...partsOf('workflow'),
        thread('main thread (relay, attempts, SDK)', p.main, u.main),
        ...partsOf('main'),
        ['other threads', '', '', ''],
        ...others,
        thread('the worker process', p.total, u.total),
      ],
    ),
  );
}
