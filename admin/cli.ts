import { openDatabase } from '../domain/data-source';
import { DomainError } from '../domain/errors';
import { loadConfig } from '../infra/config';
import { envWithDevStack } from '../infra/dev-stack';
import { parseArgs } from './args';
import { commands, usage } from './commands';

/** The operator CLI: JSON on stdout; one line on stderr and exit 1 on any error. */
async function main(argv: string[]): Promise<unknown> {
  const { group, command, flags } = parseArgs(argv);
  const run = group && command ? commands[group]?.[command] : undefined;
  if (!run) throw new Error(`unknown command "${[group, command].filter(Boolean).join(' ')}"; ${usage()}`);
  const config = loadConfig(envWithDevStack());
  const db = await openDatabase(config.databaseUrl, { poolSize: 2 });
  try {
    return await run(db, { door: 'admin', requestId: `admin_${Date.now().toString(36)}` }, flags);
  } finally {
    await db.destroy();
  }
}

main(process.argv.slice(2)).then(
  (result) => process.stdout.write(JSON.stringify(result, null, 2) + '\n'),
  (err: unknown) => {
    const field =
      err instanceof DomainError && typeof err.details.field === 'string' ? ` (${err.details.field})` : '';
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`error${field}: ${message.replace(/\s*\n\s*/g, '; ')}\n`);
    process.exit(1);
  },
);
