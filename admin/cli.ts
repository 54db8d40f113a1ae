import type { Client } from '@temporalio/client';
import { openDatabase } from '../domain/data-source';
import { operatorActor } from '../domain/kernel/actor';
import { DomainError } from '../domain/kernel/errors';
import { runOperation } from '../domain/kernel/runner';
import { besideDevStack, loadConfig } from '../infra/config';
import { composeServices } from '../domain/registry';
import { productionPorts } from '../infra/services';
import { parseArgv } from './args';
import { withBreakGlass } from './break-glass';

/** The operator CLI: JSON on stdout (help as text); one line on stderr and exit 1 on any error. */
async function main(argv: string[]): Promise<string> {
  const parsed = parseArgv(argv);
  if ('help' in parsed) return parsed.help;
  const { command: cmd, flags } = parsed;
  const env = besideDevStack();
  const config = loadConfig(env);
  const db = await openDatabase(config.databaseUrl, { poolSize: 2 });
  // Connected only when a command talks to workflows (cancels them, or decides a parked request).
  let temporal: { client: Client; close: () => Promise<void> } | undefined;
  const client = async () => {
    if (!temporal) {
      const { connectClient } = await import('../infra/temporal-client.js');
      temporal = await connectClient(config.temporalAddress, config.temporalNamespace);
    }
    return temporal.client;
  };
  try {
    const services = composeServices(withBreakGlass(productionPorts(db, config, client)));
    const actor = operatorActor({ door: 'admin', requestId: `admin_${Date.now().toString(36)}` });
    const input = cmd.binding.flags?.(flags) ?? {};
    const output: unknown = await runOperation(services, cmd.operation, actor, input, {
      workspaceId: flags.workspace,
    });
    const shown = cmd.binding.present ? cmd.binding.present(output) : output;
    // A command written for a person to read (approval show) presents text; the rest print JSON.
    return typeof shown === 'string' ? shown : JSON.stringify(shown, null, 2) + '\n';
  } finally {
    await db.destroy();
    await temporal?.close();
  }
}

main(process.argv.slice(2)).then(
  (text) => process.stdout.write(text),
  (err: unknown) => {
    const field =
      err instanceof DomainError && typeof err.details.field === 'string' ? ` (${err.details.field})` : '';
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`error${field}: ${message.replace(/\s*\n\s*/g, '; ')}\n`);
    process.exit(1);
  },
);
