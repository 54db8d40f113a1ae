import { spawn } from 'node:child_process';
import path from 'node:path';
import type { PythonTool } from '../../tooling/python-tools';
import type { FuzzOptions } from './options';

const SCHEMATHESIS_VERSION = '4.32.5';

// Hypothesis draws the data, so it is pinned too: the same seed then replays the same requests.
export const SCHEMATHESIS_TOOL: PythonTool = {
  name: 'schemathesis',
  packages: [`schemathesis==${SCHEMATHESIS_VERSION}`, 'hypothesis==6.170.15'],
  bin: 'st',
};

const CONFIG_FILE = path.join(__dirname, 'schemathesis.toml');

export type ReportPaths = { dir: string; junit: string; json: string };

export type Target = {
  /** URL the API serves its document at, or a local file. */
  location: string;
  /** scheme://host:port of the API; the document's own base path (servers[0]) is appended to it. */
  origin: string;
};

/** `st run` arguments. Static policy (headers, warnings, cache) lives in schemathesis.toml. */
export function schemathesisArgs(opts: FuzzOptions, target: Target, reports: ReportPaths): string[] {
  return [
    '--config-file',
    CONFIG_FILE,
    'run',
    target.location,
    '--origin',
    target.origin,
    '--phases',
    'examples,coverage,fuzzing,stateful',
    '--mode',
    'all',
    '--checks',
    'all',
    ...(opts.excludeChecks.length ? ['--exclude-checks', opts.excludeChecks.join(',')] : []),
    '--seed',
    String(opts.seed),
    '--max-examples',
    String(opts.maxExamples),
    ...(opts.maxTime !== undefined ? ['--max-time', String(opts.maxTime)] : []),
    '--request-timeout',
    String(opts.requestTimeout),
    '--workers',
    String(opts.workers),
    '--generation-database',
    'none',
    '--report',
    'junit,json',
    '--report-dir',
    reports.dir,
    '--report-junit-path',
    reports.junit,
    '--report-json-path',
    reports.json,
    ...opts.extra,
  ];
}

export type StRun = { code: number; timedOut: boolean };

/**
 * Runs `st` with the terminal's stdout and stderr. Aborting `signal` (Ctrl+C, SIGTERM) or passing
 * `timeoutMs` sends SIGINT, which schemathesis answers by writing its reports and exiting 130;
 * SIGKILL follows if it has not gone 20 s later.
 */
export function runSchemathesis(
  exe: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<StRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(exe, args, { stdio: ['ignore', 'inherit', 'inherit'], env });
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const interrupt = () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGINT');
      killTimer ??= setTimeout(() => child.kill('SIGKILL'), 20_000);
    };
    const deadline = setTimeout(() => {
      timedOut = true;
      interrupt();
    }, timeoutMs);
    signal.addEventListener('abort', interrupt, { once: true });
    child.once('error', reject);
    child.once('exit', (code, sig) => {
      clearTimeout(deadline);
      clearTimeout(killTimer);
      signal.removeEventListener('abort', interrupt);
      resolve({ code: code ?? (sig === 'SIGINT' ? 130 : 1), timedOut });
    });
  });
}
