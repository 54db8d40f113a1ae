import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { Logger } from '../infra/logger';
import { repoRoot } from './paths';
import { isAlive } from './processes';

export type PythonTool = {
  /** Folder name under .tools/. */
  name: string;
  /** Pinned requirement specifiers, e.g. `schemathesis==4.32.5`. */
  packages: string[];
  /**
   * The console script the packages install, e.g. `st`. Without one, the tool is a Python
   * interpreter that imports the packages (for a script of the project's own).
   */
  bin?: string;
};

type Layout = 'venv' | 'target';

/** Written last, so a folder without it (or with another package list) is never trusted. */
type Stamp = { packages: string[]; python: string; layout: Layout; entry: string };

const STAMP = '.python-tool.json';

const PIP_ENV = {
  ...process.env,
  // As root pip warns on every install; the tools live in the project's own folder, not the system's.
  PIP_ROOT_USER_ACTION: 'ignore',
  PIP_DISABLE_PIP_VERSION_CHECK: '1',
  PIP_NO_INPUT: '1',
};

const toolsRoot = () => path.join(repoRoot(), '.tools');

const installHint = () =>
  'It needs python3 on PATH with venv (or pip). On Debian or Ubuntu: apt-get install -y python3-venv python3-pip';

function pythonVersion(): string | undefined {
  const r = spawnSync('python3', ['-c', 'import sys; print(sys.version.split()[0])'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function readStamp(dir: string): Stamp | undefined {
  try {
    return JSON.parse(readFileSync(path.join(dir, STAMP), 'utf8')) as Stamp;
  } catch {
    return undefined;
  }
}

const samePackages = (a: string[], b: string[]) => [...a].sort().join('\n') === [...b].sort().join('\n');

/** What ensurePythonTool returns, relative to the tool's folder: the console script, or an interpreter. */
const entryOf = (layout: Layout, tool: PythonTool) =>
  path.join(layout === 'venv' ? 'bin' : 'launch', tool.bin ?? 'python');

/** The executable of a finished install in `dir`, if it matches the wanted packages and interpreter. */
function installed(dir: string, tool: PythonTool, python: string): string | undefined {
  const stamp = readStamp(dir);
  if (!stamp || stamp.python !== python || !samePackages(stamp.packages, tool.packages)) return undefined;
  if (stamp.entry !== entryOf(stamp.layout, tool)) return undefined;
  const entry = path.join(dir, stamp.entry);
  // A venv's python is a symlink to the base interpreter: existsSync follows it, so a removed Python counts as gone.
  const interpreter = stamp.layout === 'venv' ? path.join(dir, 'bin', 'python') : entry;
  return existsSync(entry) && existsSync(interpreter) ? entry : undefined;
}

function run(cmd: string, args: string[]) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: PIP_ENV });
  return { ok: r.status === 0, detail: (r.error?.message ?? `${r.stderr}\n${r.stdout}`).trim().slice(-2000) };
}

/**
 * pip writes the venv's absolute path into every console script's shebang, so a venv built in a
 * staging folder must be pointed at its final folder before the rename.
 */
function relocateVenv(staging: string, final: string) {
  const binDir = path.join(staging, 'bin');
  for (const name of readdirSync(binDir)) {
    const file = path.join(binDir, name);
    const st = lstatSync(file);
    // Symlinks (python, python3) point at the base interpreter, which must never be written through.
    if (!st.isFile() || st.size > 1_000_000) continue;
    const text = readFileSync(file);
    if (text.includes(0)) continue; // binary
    const before = text.toString('utf8');
    const after = before.split(staging).join(final);
    if (after !== before) writeFileSync(file, after, { mode: st.mode });
  }
}

function installVenv(staging: string, final: string, tool: PythonTool): string | undefined {
  const venv = run('python3', ['-m', 'venv', staging]);
  if (!venv.ok) return undefined; // Debian without python3-venv: ensurepip is missing
  const pip = run(path.join(staging, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', ...tool.packages]);
  if (!pip.ok) throw new Error(pip.detail);
  relocateVenv(staging, final);
  return entryOf('venv', tool);
}

// `pip install --target` leaves the scripts needing PYTHONPATH; a launcher relative to its own folder survives the rename.
function installTarget(staging: string, tool: PythonTool): string {
  if (!run('python3', ['-m', 'pip', '--version']).ok)
    throw new Error(`python3 has neither venv nor pip.\n${installHint()}`);
  const pip = run('python3', ['-m', 'pip', 'install', '--quiet', '--target', staging, ...tool.packages]);
  if (!pip.ok) throw new Error(pip.detail);
  const entry = entryOf('target', tool);
  mkdirSync(path.join(staging, 'launch'));
  writeFileSync(
    path.join(staging, entry),
    [
      '#!/bin/sh',
      '# Written by tooling/python-tools.ts: packages installed with pip --target need PYTHONPATH.',
      'here=$(cd "$(dirname "$0")/.." && pwd)',
      `PYTHONPATH="$here\${PYTHONPATH:+:$PYTHONPATH}" exec python3 ${tool.bin ? `"$here/bin/${tool.bin}" ` : ''}"$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(path.join(staging, entry), 0o755);
  return entry;
}

/** Leftovers of runs that were killed mid-install or mid-swap (`<name>.tmp-<pid>`, `<name>.old-<pid>`). */
function removeStaleFolders(name: string) {
  for (const entry of existsSync(toolsRoot()) ? readdirSync(toolsRoot()) : []) {
    const match = /^(.+)\.(?:tmp|old)-(\d+)$/.exec(entry);
    const pid = Number(match?.[2]);
    if (match?.[1] === name && pid !== process.pid && !isAlive(pid))
      rmSync(path.join(toolsRoot(), entry), { recursive: true, force: true });
  }
}

/**
 * Installs pinned PyPI packages into .tools/<name> (a venv, or `pip --target` where venv is
 * unavailable) and returns the absolute path of `bin`, or, for a tool without one, of a Python
 * interpreter that imports the packages (the venv's, or a launcher that sets PYTHONPATH). A second
 * call with the same packages and interpreter does nothing. The install happens in a staging folder
 * that is renamed into place, so concurrent runs never see half an install.
 */
export function ensurePythonTool(tool: PythonTool, log: Logger): string {
  const final = path.join(toolsRoot(), tool.name);
  const python = pythonVersion();
  if (!python) throw new Error(`${tool.name}: python3 is not on PATH or does not run.\n${installHint()}`);
  const ready = installed(final, tool, python);
  if (ready) return ready;

  log.info(`installing ${tool.packages.join(' ')} from PyPI into .tools/${tool.name} (one time)`);
  removeStaleFolders(tool.name);
  const staging = `${final}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(toolsRoot(), { recursive: true });
  try {
    let entry = installVenv(staging, final, tool);
    let layout: Layout = 'venv';
    if (!entry) {
      log.warn(`python3 -m venv is unavailable; installing ${tool.name} with pip --target instead`);
      rmSync(staging, { recursive: true, force: true });
      entry = installTarget(staging, tool);
      layout = 'target';
    }
    const stamp: Stamp = { packages: [...tool.packages].sort(), python, layout, entry };
    writeFileSync(path.join(staging, STAMP), JSON.stringify(stamp, null, 2) + '\n');
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    const detail = err instanceof Error ? err.message : String(err);
    throw new Error(`${tool.name}: installing ${tool.packages.join(' ')} failed:\n${detail}`, { cause: err });
  }

  // Another run may have finished first: keep its install and drop ours.
  if (installed(final, tool, python)) {
    rmSync(staging, { recursive: true, force: true });
  } else {
    try {
      if (existsSync(final)) {
        const old = `${final}.old-${process.pid}`;
        renameSync(final, old);
        rmSync(old, { recursive: true, force: true });
      }
      renameSync(staging, final);
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      if (!installed(final, tool, python)) throw err;
    }
  }
  const exe = installed(final, tool, python);
  if (!exe)
    throw new Error(
      `${tool.name}: ${tool.bin ?? 'python'} is missing after installing ${tool.packages.join(' ')}`,
    );
  return exe;
}
