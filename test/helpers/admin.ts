import { spawnSync } from 'node:child_process';
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
  const [command, commandArgs] =
    opts.via === 'npm'
      ? ['npm', ['run', '-s', 'admin', '--', ...args]]
      : [process.execPath, [adminEntry(), ...args]];
  const r = spawnSync(command, commandArgs, {
    cwd: repoRoot(),
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'test', ...env },
  });
  const stderr = r.stderr
    .split('\n')
    .filter((l) => l && !l.startsWith('npm warn') && !l.startsWith('admin: '))
    .join('\n');
  return { code: r.status, stdout: r.stdout, stderr };
}
