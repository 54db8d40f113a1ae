import { createPublicKey } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../domain/data-source';
import { operatorActor } from '../domain/kernel/actor';
import { DomainError } from '../domain/kernel/errors';
import type { Services, WorkflowCanceller } from '../domain/kernel/operation';
import { runOperation } from '../domain/kernel/runner';
import { besideDevStack, loadConfig, type Config } from '../infra/config';
import { parseArgv } from './args';

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
  const cancelWorkflows: WorkflowCanceller = async (ids) => {
    if (ids.length === 0) return;
    const { workflowCanceller } = await import('../infra/temporal-client.js');
    await workflowCanceller(await client())(ids);
  };
  try {
    const workflows = workflowServices(db, client, config);
    const services: Services = {
      db,
      approvals: {
        park: async (data, call) => (await workflows()).approvals.park(data, call),
        decide: async (id, decision) => (await workflows()).approvals.decide(id, decision),
        withdrawn: async (id) => (await workflows()).approvals.withdrawn(id),
      },
      campaigns: { wake: async (id, change) => (await workflows()).campaigns.wake(id, change) },
      secretsKey: config.secretsKey,
      cancelTimers: cancelWorkflows,
      appointments: {
        start: async (id) => (await workflows()).appointments.start(id),
        decide: async (id, decision) => (await workflows()).appointments.decide(id, decision),
      },
      agents: { schedule: async (id) => (await workflows()).agents.describe(id) },
      webhooks: {
        secretsKey: config.secretsKey,
        allowPrivateTargets: config.webhookAllowPrivateTargets,
        cancelWorkflows,
      },
      ...(config.smtp?.dkim && {
        mailSigning: {
          domain: config.smtp.dkim.domain,
          selector: config.smtp.dkim.selector,
          publicKey: createPublicKey(config.smtp.dkim.privateKey),
          from: config.smtp.from,
          returnPath: config.smtp.returnPathDomain,
          // URL keeps an IPv6 host in brackets; DNS records name it bare.
          relay: new URL(config.smtp.url).hostname.replace(/^\[|\]$/g, ''),
        },
      }),
    };
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

/**
 * The services that talk to workflows, loaded at their first use: most commands never do, and the
 * Temporal client's modules are about 0.4 s of a call's start.
 */
function workflowServices(db: DataSource, client: () => Promise<Client>, config: Config) {
  let loaded: ReturnType<typeof load> | undefined;
  const load = async () => {
    const [{ approvalGate }, { campaignWaker }, { bookingDesk }, { agentScheduler }] = await Promise.all([
      import('../infra/temporal/approvals.js'),
      import('../infra/temporal/campaigns.js'),
      import('../infra/temporal/appointments.js'),
      import('../infra/temporal/agents.js'),
    ]);
    const queue = config.temporalTaskQueue;
    return {
      approvals: approvalGate(db, client, queue),
      campaigns: campaignWaker(client),
      appointments: bookingDesk(db, client, queue),
      agents: agentScheduler(client, queue),
    };
  };
  return () => (loaded ??= load());
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
