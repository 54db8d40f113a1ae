import { readdirSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './lib/args';

type BenchModule = { main?: (args: string[]) => Promise<void> };

// Every top-level file here except this one is a bench; helpers live in lib/.
const available = () =>
  readdirSync(__dirname)
    .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
    .map((f) => f.slice(0, -'.ts'.length))
    .sort();

/** `npm run bench -- <name> [flags]`: runs bench/<name>.ts with the remaining arguments. */
async function run() {
  const [name, ...rest] = process.argv.slice(2);
  const names = available();
  if (!name || !names.includes(name)) {
    console.error(`${name ? `unknown bench "${name}"` : 'no bench named'}; available: ${names.join(', ')}`);
    console.error('usage: npm run bench -- <name> [--flags]');
    process.exit(1);
  }
  const mod = (await import(path.join(__dirname, `${name}.ts`))) as BenchModule;
  if (typeof mod.main !== 'function') throw new Error(`bench/${name}.ts exports no main(args)`);
  await mod.main(rest);
}

run().catch((err: unknown) => {
  console.error(err instanceof UsageError ? err.message : err);
  process.exit(1);
});
