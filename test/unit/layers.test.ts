import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { repoRoot } from '../../tooling/paths';

/**
 * The import rules that keep the layers pointing one way (eslint.config.mjs), each shown refusing a
 * deliberately bad import: a fixture file is written where the rule applies, linted with the
 * project's own configuration, and removed. Only the import rule runs, without type information: the
 * rule needs none, and building the project's type program cost 18 s of the file's 22.
 */
const CASES: { file: string; from: string; rule: RegExp }[] = [
  { file: 'domain/kernel/zz-layer-fixture.ts', from: '../leads/views', rule: /kernel imports no area/ },
  { file: 'domain/kernel/zz-layer-fixture.ts', from: '../registry', rule: /kernel imports no area/ },
  {
    file: 'domain/leads/zz-layer-fixture.ts',
    from: '../../api/errors',
    rule: /nothing below them imports a door/,
  },
  {
    file: 'domain/leads/zz-layer-fixture.ts',
    from: '../../infra/config',
    rule: /infra\/ is runtime plumbing/,
  },
  { file: 'domain/leads/zz-layer-fixture.ts', from: '@temporalio/client', rule: /as ports/ },
  { file: 'domain/kernel/zz-layer-fixture.ts', from: '@temporalio/common', rule: /as ports/ },
  { file: 'domain/leads/zz-layer-fixture.ts', from: '../../workflows/approval', rule: /worker's runtime/ },
  { file: 'infra/zz-layer-fixture.ts', from: '../workflows/approval', rule: /only infra\/temporal\// },
  { file: 'infra/zz-layer-fixture.ts', from: '../worker/relay', rule: /only infra\/temporal\// },
  { file: 'infra/zz-layer-fixture.ts', from: '../domain/leads/views', rule: /never area logic/ },
  { file: 'infra/temporal/zz-layer-fixture.ts', from: '../../worker/relay', rule: /the worker wires it/ },
  {
    file: 'activities/zz-layer-fixture.ts',
    from: '../worker/start-delivery',
    rule: /only infra\/temporal\//,
  },
  {
    file: 'admin/zz-layer-fixture.ts',
    from: '../tooling/dev-stack',
    rule: /production code must not import it/,
  },
  {
    file: 'workflows/zz-layer-fixture.ts',
    from: '../infra/config',
    rule: /activity types and pure rule data/,
  },
  { file: 'workflows/zz-layer-fixture.ts', from: '../domain/sales/views', rule: /only their contracts/ },
  {
    file: 'workflows/zz-layer-fixture.ts',
    from: '../domain/leads/repository/leads',
    rule: /only their contracts/,
  },
  { file: 'workflows/zz-layer-fixture.ts', from: '@temporalio/client', rule: /@temporalio\/workflow only/ },
];

describe('the layer rules', () => {
  const eslint = new ESLint({
    cwd: repoRoot(),
    overrideConfig: [tseslint.configs.disableTypeChecked],
    ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
  });

  for (const c of CASES) {
    it(`refuses ${c.from} in ${path.dirname(c.file)}/`, async () => {
      const file = path.join(repoRoot(), c.file);
      writeFileSync(file, `export * from '${c.from}';\n`);
      try {
        const [result] = await eslint.lintFiles([file]);
        const refusals = result!.messages.filter((m) => m.ruleId === 'no-restricted-imports');
        assert.equal(refusals.length, 1, JSON.stringify(result!.messages));
        assert.match(refusals[0]!.message, c.rule);
      } finally {
        rmSync(file, { force: true });
      }
    });
  }

  it('lets the kernel import itself, infra name kernel types, and workflows their contracts', async () => {
    for (const [file, from] of [
      ['domain/kernel/zz-layer-fixture.ts', './errors'],
      ['infra/zz-layer-fixture.ts', '../domain/kernel/operation'],
      ['infra/temporal/zz-layer-fixture.ts', '../../workflows/approval'],
      ['infra/temporal/zz-layer-fixture.ts', '../../domain/approvals/views'],
      ['workflows/zz-layer-fixture.ts', '../domain/sales/workflow-contract'],
      ['workflows/zz-layer-fixture.ts', '../domain/webhooks/delivery-rules'],
      ['workflows/zz-layer-fixture.ts', '@temporalio/workflow'],
    ] as const) {
      const target = path.join(repoRoot(), file);
      writeFileSync(target, `export * from '${from}';\n`);
      try {
        const [result] = await eslint.lintFiles([target]);
        assert.deepEqual(
          result!.messages.filter((m) => m.ruleId === 'no-restricted-imports'),
          [],
          `${file} → ${from}`,
        );
      } finally {
        rmSync(target, { force: true });
      }
    }
  });
});
