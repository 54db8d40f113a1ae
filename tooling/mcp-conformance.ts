import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from '../infra/logger';
import { repoRoot } from './paths';

/**
 * The official MCP conformance suite, kept apart from the project's own dependencies: the
 * `@modelcontextprotocol/conformance` CLI from the npm registry, pinned, in `.tools/mcp-conformance`,
 * run on this process's Node (24, which it needs 22 or later of). 0.2.0-alpha.12 is a prerelease
 * (npm's `latest` is still 0.1.16), but it is the first to know 2026-07-28 and the tasks extension.
 */
const PACKAGES = ['@modelcontextprotocol/conformance@0.2.0-alpha.12'];

const toolDir = () => path.join(repoRoot(), '.tools', 'mcp-conformance');

export type ConformanceTools = { node: string; cli: string };

const installedPackages = (stamp: string): string | undefined => {
  try {
    return readFileSync(stamp, 'utf8');
  } catch {
    return undefined;
  }
};

export function ensureConformance(log: Logger): ConformanceTools {
  const dir = toolDir();
  const tools = {
    node: process.execPath,
    cli: path.join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js'),
  };
  // The stamp names what was installed, so changing PACKAGES installs again.
  const stamp = path.join(dir, 'packages.json');
  if (installedPackages(stamp) === JSON.stringify(PACKAGES) && existsSync(tools.cli)) return tools;
  log.info(`installing ${PACKAGES.join(' and ')} into .tools/mcp-conformance (one time)`);
  // Installed beside the final folder and renamed, so a run that is cut off never leaves half an install.
  const staging = `${dir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(path.join(staging, 'package.json'), JSON.stringify({ private: true }));
  const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', staging, ...PACKAGES], {
    encoding: 'utf8',
  });
  if (npm.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`could not install the MCP conformance suite: ${npm.stderr.trim().slice(-2000)}`);
  }
  writeFileSync(path.join(staging, 'packages.json'), JSON.stringify(PACKAGES));
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return tools;
}

/** One check of a scenario, as the CLI writes it to `checks.json`. */
export type ConformanceCheck = {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  description?: string;
  errorMessage?: string;
};

export type ScenarioRun = {
  /** The CLI's exit code; null when it was killed. */
  exitCode: number | null;
  output: string;
  /** What the scenario checked; undefined when it did not run (skipped as not applicable, or crashed). */
  checks?: ConformanceCheck[];
};

export type ScenarioOptions = {
  scenario: string;
  /** `--spec-version`; without it the suite picks (2026-07-28 for extension scenarios). */
  specVersion?: string;
  /** A baseline in the CLI's format: listed failures are expected, and a listed check that passes fails the run. */
  expectedFailures?: string;
  /** The CLI's own per-scenario limit; the process is killed a few seconds after it. */
  timeoutMs: number;
  signal?: AbortSignal;
};

/** Runs the CLI to its end; asynchronous, so a server in this same process keeps answering it. */
function runCli(
  tools: ConformanceTools,
  args: string[],
  killAfterMs: number,
  signal?: AbortSignal,
): Promise<{ exitCode: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tools.node, [tools.cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], signal });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      // eslint-disable-next-line no-control-regex -- the CLI colours its report; the test prints it plain
      resolve({ exitCode: code, output: output.replace(/\x1b\[[0-9;]*m/g, '').trim() });
    });
  });
}

/**
 * Runs one server scenario against a URL and reads back what it checked. A scenario outside its
 * version range is skipped with exit code 0 and writes no `checks.json`, so a caller must look at
 * `checks`, not only at the exit code.
 */
export async function runConformanceScenario(
  tools: ConformanceTools,
  url: string,
  opts: ScenarioOptions,
): Promise<ScenarioRun> {
  const out = mkdtempSync(path.join(tmpdir(), 'mcp-conformance-'));
  try {
    const args = ['server', '--url', url, '--scenario', opts.scenario, '-o', out];
    args.push('--timeout', String(opts.timeoutMs));
    if (opts.specVersion) args.push('--spec-version', opts.specVersion);
    if (opts.expectedFailures) args.push('--expected-failures', opts.expectedFailures);
    const { exitCode, output } = await runCli(tools, args, opts.timeoutMs + 5_000, opts.signal);
    // `-o` writes <out>/server-<scenario>-<timestamp>/checks.json, and only when the scenario ran.
    const results = readdirSync(out)
      .map((d) => path.join(out, d, 'checks.json'))
      .filter((f) => existsSync(f));
    const checks =
      results.length === 1
        ? (JSON.parse(readFileSync(results[0]!, 'utf8')) as ConformanceCheck[])
        : undefined;
    return { exitCode, output, checks };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** A server scenario the suite ships: the protocol versions it applies to, or an extension's. */
export type ServerScenario = { name: string; versions: string[]; extension: boolean };

/** Every server scenario of the installed suite (`conformance list --server`). */
export async function listServerScenarios(tools: ConformanceTools): Promise<ServerScenario[]> {
  const { exitCode, output } = await runCli(tools, ['list', '--server'], 20_000);
  if (exitCode !== 0) throw new Error(`conformance list --server failed: ${output.slice(-2000)}`);
  return [...output.matchAll(/^\s*- (\S+) \[([^\]]*)\]$/gm)].map(([, name, versions]) => ({
    name: name!,
    versions: versions === 'extension' ? [] : versions!.split(','),
    extension: versions === 'extension',
  }));
}
