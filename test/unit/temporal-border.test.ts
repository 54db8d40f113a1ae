import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../../tooling/paths';

/** Every TypeScript file under `folder`, relative to the repository. */
function sources(folder: string): string[] {
  return readdirSync(path.join(repoRoot(), folder), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(folder, f));
}

const read = (file: string) => readFileSync(path.join(repoRoot(), file), 'utf8');

/**
 * Temporal stays out of the domain: the domain states what it needs as ports (domain/kernel/) and
 * infra/temporal/ implements them, the only place that names a workflow or starts one
 * (docs/temporal.md). ESLint refuses such an import too; this reads the files themselves, so a
 * disabled rule or a dynamic import cannot slip one past.
 */
describe('the Temporal border', () => {
  it('no file under domain/ imports @temporalio/', () => {
    const importing = sources('domain').filter((f) =>
      /(from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)['"]@temporalio\//.test(read(f)),
    );
    assert.deepEqual(importing, []);
  });

  it('one helper tolerates an already-started workflow, and workflows are started by function', () => {
    const production = ['api', 'admin', 'domain', 'infra', 'worker', 'activities', 'workflows'].flatMap(
      sources,
    );
    const tolerating = production.filter((f) => read(f).includes('WorkflowExecutionAlreadyStartedError'));
    assert.deepEqual(tolerating, [path.join('infra', 'temporal', 'start-once.ts')]);
    const byName = production.filter((f) => /\.(start|execute)\(\s*['"`]/.test(read(f)));
    assert.deepEqual(byName, []);
  });

  /** Production files outside infra/temporal/, where Temporal's names and starts do not belong. */
  const outsideTemporal = () =>
    ['api', 'admin', 'domain', 'infra', 'worker', 'activities', 'workflows']
      .flatMap(sources)
      .filter((f) => !f.startsWith(path.join('infra', 'temporal') + path.sep));

  it('builds every workflow id in infra/temporal/ alone', () => {
    // The prefixes are read from the builders themselves, so a new one is held to the rule at once.
    const builders = read(path.join('infra', 'temporal', 'workflow-ids.ts'));
    const prefixes = [...new Set([...builders.matchAll(/`([a-z][a-z-]*):\$\{/g)].map((m) => m[1]!))];
    const suffixes = [...builders.matchAll(/\}:([a-z][a-z-]*)`/g)].map((m) => m[1]!);
    assert.ok(prefixes.includes('approval') && prefixes.includes('webhook-delivery'), prefixes.join());
    assert.ok(suffixes.includes('reconcile-deliveries'), suffixes.join());
    const building = new RegExp(
      `(\`|['"])(${prefixes.join('|')}):(\\$\\{|['"])|\\}:(${suffixes.join('|')})\``,
    );
    const builds = outsideTemporal().filter((f) => building.test(read(f)));
    assert.deepEqual(builds, []);
  });

  it('starts workflows and schedules in infra/temporal/ alone', () => {
    const starting =
      /\bworkflow\s*\.\s*(start|execute|signalWithStart)\s*\(|\bstartOnce\s*\(|\bsignalWithStart\s*\(|\bschedule\s*\.\s*create\s*\(/;
    const starts = outsideTemporal().filter((f) => starting.test(read(f)));
    assert.deepEqual(starts, []);
  });
});
