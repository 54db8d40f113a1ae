import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openApiDocument } from '../api/openapi/document';
import { repoRoot } from '../tooling/paths';

/**
 * `npm run lint:openapi`: writes the document GET /api/v1/openapi.json serves (the same function
 * builds it; no server needed) and lints it with Spectral (.spectral.yaml: spectral:oas and the
 * OWASP API Security rules) and Redocly (redocly.yaml: recommended). Fails on any error from either;
 * warnings are printed and left to judgement (docs/decisions.md lists the ones that stay).
 */
const DOCUMENT = path.join('dist', 'openapi.json');

function run(tool: string, args: string[]): boolean {
  const bin = path.join(repoRoot(), 'node_modules', '.bin', tool);
  const result = spawnSync(bin, args, {
    cwd: repoRoot(),
    stdio: 'inherit',
    // Redocly asks the registry for a newer version unless told not to; its usage data is off in redocly.yaml.
    env: { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  if (result.error) throw result.error;
  return result.status === 0;
}

const file = path.join(repoRoot(), DOCUMENT);
mkdirSync(path.dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
process.stdout.write(`wrote ${DOCUMENT}\n`);

const results = [
  run('spectral', ['lint', DOCUMENT, '--ruleset', '.spectral.yaml', '--fail-severity', 'error']),
  run('redocly', ['lint', DOCUMENT, '--config', 'redocly.yaml', '--format', 'stylish']),
];
if (results.includes(false)) {
  process.stderr.write('OpenAPI lint failed: see the errors above.\n');
  process.exit(1);
}
