import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { format, resolveConfig } from 'prettier';
import { EVENT_SCHEMAS_FILE, buildEventSchemas } from '../tooling/event-schemas';
import { repoRoot } from '../tooling/paths';

/** `npm run schemas`: regenerates domain/kernel/event-schemas.json from the event catalogue's types. */
async function main() {
  const file = path.join(repoRoot(), EVENT_SCHEMAS_FILE);
  const text = await format(JSON.stringify(buildEventSchemas()), {
    ...(await resolveConfig(file)),
    filepath: file,
  });
  writeFileSync(file, text);
  process.stdout.write(`wrote ${EVENT_SCHEMAS_FILE}\n`);
}

void main();
