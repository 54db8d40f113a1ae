import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../tooling/paths';

type CallFrame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
type CpuProfile = { nodes: ProfileNode[]; startTime: number; samples: number[]; timeDeltas: number[] };

export type WorkerThread = 'main' | 'workflow';

/**
 * A frame belongs to `part` when its location matches `where` (and its function `fn`). Locations:
 * `worker/relay` (a file of ours, built or not), `npm:pg/lib/client` (a package's file),
 * `node:_http_client` (Node's own), `sandbox:` before either for the workflow bundle's modules,
 * `(native)` for V8 and C++ functions, and V8's buckets `(garbage collector)` and `(program)` (V8 and
 * Node outside any JavaScript).
 */
type Rule = [part: string, where: RegExp, fn?: RegExp];

const SDK_MAIN = 'SDK: worker loop, activity tasks, core bridge calls';
const SOCKETS = "socket connects + first write (nearly all the POSTs')";

/**
 * A sample's self time goes to the nearest frame on its stack that an `owner` rule claims (the first
 * rule that matches it), so the driver's time under the relay's read is the relay's and under the
 * attempt's recording the recording's. A stack no owner claims, such as the database driver sending
 * a query after an await (the caller is not on the stack then), goes to the first `fallback` rule any
 * of its frames matches. Written from the frames of a real profile (Node 24, 2026-11-29).
 */
const RULES: Record<WorkerThread, { owners: Rule[]; fallbacks: Rule[] }> = {
  main: {
    owners: [
      [
        'relay (outbox reads, workflow starts)',
        /^(worker\/relay|infra\/temporal\/\S+|domain\/kernel\/outbox|domain\/webhooks\/outboxes|npm:@temporalio\/client\/\S+)$/,
      ],
      ['attempt: target read + claim', /^domain\/webhooks\/(attempt-target|attempt-claim)$/],
      ['attempt: signing (secret decrypted, HMAC)', /^domain\/webhooks\/(signing|delivery-headers|secrets)$/],
      ['attempt: HTTP', /^(activities\/http-post|node:https?|node:_http_\w+)$/],
      ['attempt: recording', /^domain\/webhooks\/record-attempt$/],
      [
        'attempt: the rest (deliver.ts, slots, target check)',
        /^(activities\/(deliver|endpoint-slots)|domain\/webhooks\/(url-policy|delivery-rules))$/,
      ],
      [
        'tracing',
        /^(npm:@opentelemetry\/\S+|npm:@temporalio\/interceptors-opentelemetry\/\S+|\S+\/tracing)$/,
      ],
      [
        'metrics',
        /^(npm:prom-client\/\S+|worker\/worker-metrics|activities\/activity-metrics|infra\/prometheus)$/,
      ],
      [
        'logging',
        /^(npm:(pino|pino-std-serializers|sonic-boom|thread-stream|fast-redact)\/\S+|infra\/logger)$/,
      ],
      ['SDK: activations to and from the workflow thread', /^npm:@temporalio\/worker\/lib\/workflow\//],
      [SDK_MAIN, /^npm:(@temporalio\/(worker|core-bridge|activity)|rxjs)\//],
    ],
    fallbacks: [
      ['database driver after an await (caller unknown)', /^(npm:(pg|pg-\w+|typeorm)\/\S+|domain\/\S+)$/],
      [SDK_MAIN, /^npm:(@temporalio\/(common|proto)|protobufjs|long)\//],
      [SOCKETS, /^node:net$/, /^(internalConnect|afterConnect)$/],
      ['garbage collector', /^\(garbage collector\)$/],
      ['(program): V8 and Node outside JavaScript', /^\(program\)$/],
      ['Node: event loop, socket reads, microtasks', /^node:/],
    ],
  },
  workflow: {
    owners: [
      [
        'runInContext per call into a sandbox (its watchdog)',
        /^(\(native\)|evalmachine\.<anonymous>)$/,
        /^(runInContext|__TEMPORAL_CALL_INTO_SCOPE)$/,
      ],
      [
        'tracing',
        /^sandbox:(workflows\/tracing|npm:@opentelemetry\/\S+|npm:@temporalio\/interceptors-opentelemetry\/\S+)$/,
      ],
      ['our workflows/ (and the rules they import)', /^sandbox:(workflows|domain)\//],
      ['SDK in the sandbox (@temporalio/workflow, webpack runtime)', /^sandbox:/],
      ['SDK thread code (activations in and out, contexts)', /^npm:(@temporalio\/\S+|protobufjs|long)\//],
    ],
    fallbacks: [
      ['garbage collector', /^\(garbage collector\)$/],
      ['(program): V8 and Node outside JavaScript', /^\(program\)$/],
      ['Node: messages, event loop', /^node:/],
    ],
  },
};

const OTHER = 'other';

/** Every part of a thread in the rules' order: the order of the table. */
export const partsOf = (thread: WorkerThread): string[] => [
  ...new Set([...RULES[thread].owners, ...RULES[thread].fallbacks].map(([part]) => part)),
  OTHER,
];

/** The workflow bundle's modules by first line: webpack's development output opens each with `/***\/ "./path"`. */
export type BundleModules = { file: string; starts: { line: number; module: string }[] };

export function bundleModules(file: string): BundleModules {
  const starts = readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((text, line) => {
      if (/^\/\*{70,}\/$/.test(text)) return [{ line, module: '(webpack runtime)' }];
      const m = /^\/\*\*\*\/ "(.+)":?$/.exec(text);
      return m ? [{ line, module: m[1]! }] : [];
    });
  return { file: path.resolve(file), starts };
}

function moduleAt(bundle: BundleModules, line: number): string {
  let found = '(webpack runtime)';
  for (const s of bundle.starts) {
    if (s.line > line) break;
    found = s.module;
  }
  return found;
}

const moduleName = (file: string) => {
  const name = file.replace(/\.[cm]?[jt]s$/, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+\/.*)$/.exec(name);
  if (pkg) return `npm:${pkg[1]}`;
  return name.replace(/^\.\//, '').replace(/^dist\//, '');
};

function locationOf(frame: CallFrame, bundle: BundleModules | undefined): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return url;
  const file = url.replace(/^file:\/\//, '');
  if (bundle && file === bundle.file) return `sandbox:${moduleName(moduleAt(bundle, frame.lineNumber))}`;
  return moduleName(path.relative(repoRoot(), file));
}

export type ThreadParts = {
  /** Sampled time that was not idle, in the window (µs). */
  busy_us: number;
  /** Sampled µs by part. */
  parts: Map<string, number>;
  /** By part, the functions with the most self time: `name location:line` and µs. */
  functions: Map<string, Map<string, number>>;
};

/** The self time of a `--cpu-prof` profile's samples taken in [fromUs, toUs] (V8's clock), by part. */
export function cpuByPart(
  file: string,
  thread: WorkerThread,
  window: { fromUs: number; toUs: number },
  bundle?: BundleModules,
): ThreadParts {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const where = new Map(profile.nodes.map((n) => [n.id, locationOf(n.callFrame, bundle)]));
  const claims = (rules: Rule[], id: number) => {
    const loc = where.get(id)!;
    const name = byId.get(id)!.callFrame.functionName;
    return rules.find(([, w, fn]) => w.test(loc) && (!fn || fn.test(name)))?.[0];
  };
  const { owners, fallbacks } = RULES[thread];
  const partCache = new Map<number, string>();
  const partOf = (leaf: number): string => {
    const cached = partCache.get(leaf);
    if (cached) return cached;
    let part: string | undefined;
    for (let id: number | undefined = leaf; !part && id !== undefined; id = parentOf.get(id))
      part = claims(owners, id);
    for (const rule of fallbacks)
      for (let id: number | undefined = leaf; !part && id !== undefined; id = parentOf.get(id))
        part = claims([rule], id);
    partCache.set(leaf, part ?? OTHER);
    return part ?? OTHER;
  };

  const out: ThreadParts = { busy_us: 0, parts: new Map(), functions: new Map() };
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (at < window.fromUs || at > window.toUs) return;
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') return;
    out.busy_us += us;
    const part = partOf(id);
    out.parts.set(part, (out.parts.get(part) ?? 0) + us);
    const fns = out.functions.get(part) ?? new Map<string, number>();
    const fn = `${frame.functionName || '(anonymous)'} ${where.get(id)}:${frame.lineNumber + 1}`;
    fns.set(fn, (fns.get(fn) ?? 0) + us);
    out.functions.set(part, fns);
  });
  return out;
}
