import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { referenceDocs } from '../tooling/reference-docs';
import { repoRoot } from '../tooling/paths';

/**
 * Regenerates the references the code already knows: docs/reference/configuration.md from
 * infra/config.ts and docs/reference/admin-cli.md from the registry (test/unit/docs.test.ts fails when
 * either is stale).
 */
async function main() {
  for (const [file, text] of await referenceDocs()) {
    const target = path.join(repoRoot(), file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text);
    process.stdout.write(`wrote ${file}\n`);
  }
}

void main();
