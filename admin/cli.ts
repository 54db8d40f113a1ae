import { openDatabase } from '../domain/data-source';
import { operatorActor } from '../domain/kernel/actor';
import { DomainError } from '../domain/kernel/errors';
import type { WorkflowCanceller } from '../domain/kernel/operation';
import { runOperation } from '../domain/kernel/runner';
import { loadConfig } from '../infra/config';
import { connectClient, workflowCanceller } from '../infra/temporal-client';
import { envWithDevStack } from '../tooling/dev-stack';
import { parseArgs } from './args';
import { commands, usage } from './commands';
import { decide } from './decide';

/** The operator CLI: JSON on stdout; one line on stderr and exit 1 on any error. */
async function main(argv: string[]): Promise<unknown> {
  const { group, command, flags } = parseArgs(argv);
  const cmd = group && command ? commands[group]?.[command] : undefined;
  if (!cmd) throw new Error(`unknown command "${[group, command].filter(Boolean).join(' ')}"; ${usage()}`);
  const config = loadConfig(envWithDevStack());
  const db = await openDatabase(config.databaseUrl, { poolSize: 2 });
  // Connected only when a command has workflows to cancel.
  let temporal: Awaited<ReturnType<typeof connectClient>> | undefined;
  const cancelWorkflows: WorkflowCanceller = async (ids) => {
    if (ids.length === 0) return;
    temporal ??= await connectClient(config.temporalAddress, config.temporalNamespace);
    await workflowCanceller(temporal.client)(ids);
  };
  try {
    const services = {
      db,
      webhooks: {
        secretsKey: config.secretsKey,
        allowPrivateTargets: config.webhookAllowPrivateTargets,
        cancelWorkflows,
      },
    };
    if ('decide' in cmd) {
      temporal ??= await connectClient(config.temporalAddress, config.temporalNamespace);
      return await decide(db, temporal.client, cmd.decide, flags);
    }
    const actor = operatorActor({ door: 'admin', requestId: `admin_${Date.now().toString(36)}` });
    const output: unknown = await runOperation(services, cmd.operation, actor, cmd.input(flags), {
      workspaceId: flags.workspace,
    });
    return cmd.present ? cmd.present(output) : output;
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
