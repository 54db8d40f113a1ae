import { openDatabase } from '../domain/data-source';
import { DomainError } from '../domain/errors';
import { loadConfig } from '../infra/config';
import { envWithDevStack } from '../infra/dev-stack';
import { connectClient, workflowCanceller } from '../infra/temporal-client';
import type { WorkflowCanceller } from '../domain/webhooks/workflow-ids';
import { parseArgs } from './args';
import { commands, usage } from './commands';

/** The operator CLI: JSON on stdout; one line on stderr and exit 1 on any error. */
async function main(argv: string[]): Promise<unknown> {
  const { group, command, flags } = parseArgs(argv);
  const run = group && command ? commands[group]?.[command] : undefined;
  if (!run) throw new Error(`unknown command "${[group, command].filter(Boolean).join(' ')}"; ${usage()}`);
  const config = loadConfig(envWithDevStack());
  const db = await openDatabase(config.databaseUrl, { poolSize: 2 });
  let temporal: Awaited<ReturnType<typeof connectClient>> | undefined;
  const cancelWorkflows: WorkflowCanceller = async (ids) => {
    if (ids.length === 0) return;
    temporal ??= await connectClient(config.temporalAddress, config.temporalNamespace);
    await workflowCanceller(temporal.client)(ids);
  };
  try {
    return await run(db, { door: 'admin', requestId: `admin_${Date.now().toString(36)}` }, flags, {
      endpoint: {
        secretsKey: config.secretsKey,
        allowPrivateTargets: config.webhookAllowPrivateTargets,
        cancelWorkflows,
      },
    });
  } finally {
    await db.destroy();
    await temporal?.close();
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
