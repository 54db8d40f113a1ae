import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import * as workflows from '../../workflows';

const BEHAVIOUR = { PINNED: 'pinned', AUTO_UPGRADE: 'auto-upgrade' } as const;

/** The policy table of docs/temporal.md ("Deploys"): workflow type to its behaviour, as written. */
function documentedPolicy(): Map<string, string> {
  const doc = readFileSync(path.join(__dirname, '..', '..', 'docs', 'temporal.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| `(\w+Workflow)`\s*\|[^|]*\|\s*(pinned|auto-upgrade)\s*\|/gm)];
  return new Map(rows.map((m) => [m[1]!, m[2]!]));
}

/** What `setWorkflowOptions` put on the workflow function. */
const behaviourOf = (fn: unknown) =>
  (fn as { workflowDefinitionOptions?: { versioningBehavior?: keyof typeof BEHAVIOUR } })
    .workflowDefinitionOptions?.versioningBehavior;

describe('the versioning policy of each workflow type', () => {
  const registered = Object.entries(workflows).filter(([, w]) => typeof w === 'function');

  it('is said by the workflow itself, not left to the worker default', () => {
    for (const [name, fn] of registered)
      assert.ok(behaviourOf(fn), `${name} sets no versioningBehavior (setWorkflowOptions)`);
  });

  it('is the one docs/temporal.md gives, for every type and no other', () => {
    const documented = documentedPolicy();
    assert.deepEqual(
      [...documented.keys()].sort(),
      registered.map(([name]) => name).sort(),
      'docs/temporal.md lists each registered workflow once',
    );
    for (const [name, fn] of registered)
      assert.equal(documented.get(name), BEHAVIOUR[behaviourOf(fn)!], name);
  });
});
