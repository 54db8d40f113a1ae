import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../../tooling/paths';

/** The source files of some top-level folders, relative to the repository root. */
function sources(dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    if (statSync(p).isDirectory()) for (const e of readdirSync(p)) walk(path.join(p, e));
    else if (/\.(ts|mjs)$/.test(p)) out.push(path.relative(repoRoot(), p));
  };
  for (const dir of dirs) walk(path.join(repoRoot(), dir));
  return out;
}

const holding = (files: string[], pattern: RegExp) =>
  files.filter((f) => pattern.test(readFileSync(path.join(repoRoot(), f), 'utf8')));

describe('production code', () => {
  it('reads configuration through infra/config.ts alone, never process.env', () => {
    const files = sources(['api', 'worker', 'activities', 'domain', 'workflows', 'admin', 'infra']);
    assert.ok(files.length > 100, `${files.length} files`);
    assert.deepEqual(
      holding(files, /process\.env\b/).filter((f) => f !== path.join('infra', 'config.ts')),
      [],
    );
  });

  it('exports nothing that nothing imports (knip, as npm run lint:unused runs it)', () => {
    const bin = path.join(repoRoot(), 'node_modules', '.bin', 'knip');
    const run = spawnSync(bin, ['--include', 'exports,types', '--no-progress'], {
      cwd: repoRoot(),
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  });

  it('carries no crash-injection seam: the fault hook lives in tooling/fault-hooks.mjs', () => {
    const files = sources(['api', 'worker', 'activities', 'domain', 'workflows', 'admin', 'infra']);
    assert.deepEqual(holding(files, /API_CRASH_AFTER_COMMIT|RELAY_CRASH_AT|killAfterCommit|crashAt\b/), []);
    assert.equal(holding(['tooling/fault-hooks.mjs'], /API_CRASH_AFTER_COMMIT/).length, 1);
  });
});
