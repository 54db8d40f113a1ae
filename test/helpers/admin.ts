import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../tooling/paths';

/** What `npm run admin` runs (package.json's script), e.g. `tsx admin/cli.ts`: its entry file. */
const adminEntry = () => {
  const scripts = (
    JSON.parse(readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const entry = /^tsx (\S+\.ts)$/.exec(scripts.admin ?? '')?.[1];
  if (!entry) throw new Error(`package.json's admin script is not "tsx <file>.ts": ${scripts.admin}`);
  return entry;
};

/**
 * Runs the admin CLI from the repository root, with `env` over the test's environment: its exit code,
 * stdout, and stderr without npm's warnings. `via: 'npm'` runs it exactly as the README tells an
 * operator to (`npm run -s admin -- ...`); otherwise the same entry file that script names runs under
 * tsx in this Node directly, without npm's second of start-up (the suite makes about 70 calls, twice in CI).
 */
export function runAdmin(env: NodeJS.ProcessEnv, args: string[], opts: { via?: 'npm' } = {}) {
  const [command, commandArgs] =
    opts.via === 'npm'
      ? ['npm', ['run', '-s', 'admin', '--', ...args]]
      : [process.execPath, ['--import', 'tsx', adminEntry(), ...args]];
  const r = spawnSync(command, commandArgs, {
    cwd: repoRoot(),
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'test', ...env },
  });
  const stderr = r.stderr
    .split('\n')
    .filter((l) => l && !l.startsWith('npm warn'))
    .join('\n');
  return { code: r.status, stdout: r.stdout, stderr };
}
