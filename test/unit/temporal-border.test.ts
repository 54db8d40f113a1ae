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
 * infra/temporal/ implements them. ESLint refuses such an import too; this reads the files themselves,
 * so a disabled rule or a dynamic import cannot slip one past.
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
});
