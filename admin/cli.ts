import { agentScheduler } from '../domain/agents/temporal';
import { bookingDesk } from '../domain/appointments/temporal';
import { approvalGate } from '../domain/approvals/temporal';
import { campaignWaker } from '../domain/campaigns/temporal';
import { openDatabase } from '../domain/data-source';
import { operatorActor } from '../domain/kernel/actor';
import { DomainError } from '../domain/kernel/errors';
import type { Services, WorkflowCanceller } from '../domain/kernel/operation';
import { runOperation } from '../domain/kernel/runner';
import { loadConfig } from '../infra/config';
import { connectClient, workflowCanceller } from '../infra/temporal-client';
import { envWithDevStack } from '../infra/dev-stack';
import { parseArgv } from './args';

/** The operator CLI: JSON on stdout (help as text); one line on stderr and exit 1 on any error. */
async function main(argv: string[]): Promise<string> {
  const parsed = parseArgv(argv);
  if ('help' in parsed) return parsed.help;
  const { command: cmd, flags } = parsed;
  const config = loadConfig(envWithDevStack());
  const db = await openDatabase(config.databaseUrl, { poolSize: 2 });
  // Connected only when a command talks to workflows (cancels them, or decides a parked request).
  let temporal: Awaited<ReturnType<typeof connectClient>> | undefined;
  const client = async () => {
    temporal ??= await connectClient(config.temporalAddress, config.temporalNamespace);
    return temporal.client;
  };
  const cancelWorkflows: WorkflowCanceller = async (ids) => {
    if (ids.length > 0) await workflowCanceller(await client())(ids);
  };
  try {
    const services: Services = {
      db,
      approvals: approvalGate(db, client, config.temporalTaskQueue),
      campaigns: campaignWaker(client),
      secretsKey: config.secretsKey,
      publicUrl: config.publicUrl,
      cancelTimers: cancelWorkflows,
      appointments: bookingDesk(db, client, config.temporalTaskQueue),
      agents: { schedule: agentScheduler(client, config.temporalTaskQueue).describe },
      webhooks: {
        secretsKey: config.secretsKey,
        allowPrivateTargets: config.webhookAllowPrivateTargets,
        cancelWorkflows,
      },
    };
    const actor = operatorActor({ door: 'admin', requestId: `admin_${Date.now().toString(36)}` });
    const input = cmd.binding.flags?.(flags) ?? {};
    const output: unknown = await runOperation(services, cmd.operation, actor, input, {
      workspaceId: flags.workspace,
    });
    const shown = cmd.binding.present ? cmd.binding.present(output) : output;
    return JSON.stringify(shown, null, 2) + '\n';
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
