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
  { file: 'infra/zz-layer-fixture.ts', from: '../workflows/approval', rule: /must not import it/ },
  { file: 'infra/zz-layer-fixture.ts', from: '../worker/relay', rule: /must not import it/ },
  { file: 'infra/zz-layer-fixture.ts', from: '../domain/leads/views', rule: /never area logic/ },
  { file: 'activities/zz-layer-fixture.ts', from: '../worker/start-delivery', rule: /must not import it/ },
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

  it('lets the kernel import itself, and infra name kernel types', async () => {
    for (const [file, from] of [
      ['domain/kernel/zz-layer-fixture.ts', './errors'],
      ['infra/zz-layer-fixture.ts', '../domain/kernel/operation'],
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
