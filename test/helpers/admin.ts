import { spawnSync } from 'node:child_process';
import { repoRoot } from '../../tooling/paths';

/**
 * Runs the admin CLI as the README tells an operator to (`npm run -s admin -- ...`) from the repository
 * root, with `env` over the test's environment: its exit code, stdout, and stderr without npm's warnings.
 */
export function runAdmin(env: NodeJS.ProcessEnv, args: string[]) {
  const r = spawnSync('npm', ['run', '-s', 'admin', '--', ...args], {
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
