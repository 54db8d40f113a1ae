import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../tooling/paths';

/** What `npm run admin` runs (package.json's script), `node admin/launch.mjs`: its entry file. */
const adminEntry = () => {
  const scripts = (
    JSON.parse(readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const entry = /^node (\S+\.m?js)$/.exec(scripts.admin ?? '')?.[1];
  if (!entry) throw new Error(`package.json's admin script is not "node <file>.mjs": ${scripts.admin}`);
  return entry;
};

/**
 * Runs the admin CLI from the repository root, with `env` over the test's environment (a variable set
 * to undefined is left out): its exit code, stdout, and stderr without npm's warnings or the launcher's
 * notes (a rebuild of dist/ when a source changed, maybe mid-run). `via: 'npm'` runs it exactly as
 * docs/admin-cli.md tells an operator to (`npm run -s admin -- ...`); otherwise the same entry file that script
 * names runs in this Node directly, without npm's start-up (the suite makes about 70 calls, twice in CI).
 */
export function runAdmin(env: NodeJS.ProcessEnv, args: string[], opts: { via?: 'npm' } = {}) {
  const [command, commandArgs] = commandLine(args, opts);
  const r = spawnSync(command, commandArgs, { cwd: repoRoot(), encoding: 'utf8', env: childEnv(env) });
  return { code: r.status, stdout: r.stdout, stderr: ownLines(r.stderr) };
}

/**
 * `runAdmin` without blocking this process, for a test whose worker runs in it (a relay to wake, a
 * workflow to answer while the command runs).
 */
export function runAdminAsync(
  env: NodeJS.ProcessEnv,
  args: string[],
  opts: { via?: 'npm' } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [command, commandArgs] = commandLine(args, opts);
  const child = spawn(command, commandArgs, { cwd: repoRoot(), env: childEnv(env) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr: ownLines(stderr) }));
  });
}

const commandLine = (args: string[], opts: { via?: 'npm' }): [string, string[]] =>
  opts.via === 'npm'
    ? ['npm', ['run', '-s', 'admin', '--', ...args]]
    : [process.execPath, [adminEntry(), ...args]];

const childEnv = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
  ...process.env,
  NODE_ENV: 'test',
  ...env,
});

/** The CLI's own lines: without npm's warnings or the launcher's notes. */
const ownLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l && !l.startsWith('npm warn') && !l.startsWith('admin: '))
    .join('\n');
