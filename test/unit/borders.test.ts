import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../../tooling/paths';

type Violation = { from: string; to: string; rule: { name: string } };

/** dependency-cruiser with the project's configuration over `paths`: the violations it reports. */
function cruise(paths: string[]): Violation[] {
  const bin = path.join(repoRoot(), 'node_modules', '.bin', 'depcruise');
  const run = spawnSync(bin, ['--config', '.dependency-cruiser.cjs', '--output-type', 'json', ...paths], {
    cwd: repoRoot(),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  assert.ok(run.stdout, `depcruise printed nothing: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

/**
 * The borders between the areas (.dependency-cruiser.cjs), each shown refusing a deliberately bad
 * import: fixture files are written where the rule applies, cruised with the project's configuration,
 * and removed. The whole production tree then passes.
 */
const CASES: { file: string; body: string; rule?: string }[] = [
  // Another area's insides, past its index.
  {
    file: 'domain/sales/zz-border-deep.ts',
    body: "export * from '../leads/scoring';",
    rule: 'area-index-only-from-areas',
  },
  // A door past an area's index.
  {
    file: 'api/zz-border-deep.ts',
    body: "export * from '../domain/leads/scoring';",
    rule: 'area-index-only-from-doors',
  },
  // A lower area importing a higher one through its index: an area-level cycle no file-level check sees.
  { file: 'domain/leads/zz-border-rank.ts', body: "export * from '../sales';", rule: 'rank-leads' },
  { file: 'domain/identity/zz-border-rank.ts', body: "export * from '../approvals';", rule: 'rank-identity' },
  // The kernel below every area; an area never above the registry.
  {
    file: 'domain/kernel/zz-border-kernel.ts',
    body: "export * from '../leads';",
    rule: 'kernel-imports-no-area',
  },
  {
    file: 'domain/agents/zz-border-registry.ts',
    body: "export * from '../registry';",
    rule: 'areas-not-above-the-registry',
  },
  // A cycle between two files.
  {
    file: 'api/zz-border-cycle-a.ts',
    body: "export * from './zz-border-cycle-b';\nexport const a = 1;",
    rule: 'no-circular',
  },
  {
    file: 'api/zz-border-cycle-b.ts',
    body: "export * from './zz-border-cycle-a';\nexport const b = 1;",
  },
];

describe('the borders between the areas', () => {
  it('refuses a deep import, an import up the rank, the kernel importing an area, and a cycle', () => {
    const files = CASES.map((c) => path.join(repoRoot(), c.file));
    CASES.forEach((c, i) => writeFileSync(files[i]!, `${c.body}\n`));
    try {
      const violations = cruise(CASES.map((c) => c.file));
      for (const c of CASES) {
        if (!c.rule) continue; // the other half of the cycle: a cycle is reported once
        const found = violations.filter((v) => v.from === c.file).map((v) => v.rule.name);
        assert.ok(found.includes(c.rule), `${c.file}: expected ${c.rule}, got ${JSON.stringify(found)}`);
      }
    } finally {
      for (const file of files) rmSync(file, { force: true });
    }
  });

  it('hold on the production code as it is', () => {
    const violations = cruise(['api', 'worker', 'activities', 'admin', 'infra', 'workflows', 'domain']);
    assert.deepEqual(
      violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`),
      [],
    );
  });
});
