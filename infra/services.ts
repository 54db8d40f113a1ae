import { createPublicKey } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Ports } from '../domain/kernel/operation';
import type { Config } from './config';
import { jobNames } from './temporal/workflow-ids';

/**
 * The ports every production process (the API, the worker, the admin CLI) runs operations with, built
 * whole, for its root to compose with the areas (`composeServices`): the approval gate, the campaign
 * waker, the booking desk, the agents' schedules and the cancelling of timers and deliveries on
 * Temporal, reached through `temporal` (dialled at first use, so the API serves REST whether or not
 * Temporal is up yet), and the jobs' names; the keys, the public URL, the mail signing and the feedback
 * domains from the configuration; whether an operator's decision is taken (APPROVALS_OPERATOR_DECIDE, or
 * any environment but production) and the operating system user and host the process runs as.
 * The Temporal adapters' modules load at their first use too: most admin commands never need them,
 * and they are about 0.4 s of a call's start.
 */
export function productionPorts(
  db: DataSource,
  config: Config,
  temporal: () => Promise<Client>,
): Ports & { db: DataSource } {
  const workflows = lazyWorkflows(db, config, temporal);
  const dkim = config.smtp?.dkim;
  return {
    db,
    approvals: {
      park: async (data, call) => (await workflows()).approvals.park(data, call),
      decide: async (id, decision) => (await workflows()).approvals.decide(id, decision),
      withdrawn: async (id) => (await workflows()).approvals.withdrawn(id),
    },
    campaigns: { wake: async (id, change) => (await workflows()).campaigns.wake(id, change) },
    appointments: {
      start: async (id) => (await workflows()).appointments.start(id),
      decide: async (id, decision) => (await workflows()).appointments.decide(id, decision),
    },
    agents: { schedule: async (id) => (await workflows()).agents.describe(id) },
    cancelTimers: { invoiceDue: async (id) => (await workflows()).timers.invoiceDue(id) },
    jobNames,
    secretsKey: config.secretsKey,
    publicUrl: config.publicUrl,
    operatorDecisions: {
      allowed: config.approvalsOperatorDecide || config.env !== 'production',
      osUser: userInfo().username,
      host: hostname(),
    },
    webhooks: {
      secretsKey: config.secretsKey,
      allowPrivateTargets: config.webhookAllowPrivateTargets,
      cancelWorkflows: async (deliveries) => (await workflows()).deliveries(deliveries),
    },
    mailFeedbackDomains: config.mailFeedbackDomains,
    ...(config.smtp &&
      dkim && {
        mailSigning: {
          domain: dkim.domain,
          selector: dkim.selector,
          publicKey: createPublicKey(dkim.privateKey),
          from: config.smtp.from,
          returnPath: config.smtp.returnPathDomain,
          // URL keeps an IPv6 host in brackets; DNS records name it bare.
          relay: new URL(config.smtp.url).hostname.replace(/^\[|\]$/g, ''),
        },
      }),
  };
}

/** The Temporal adapters, loaded once at their first use. */
function lazyWorkflows(db: DataSource, config: Config, temporal: () => Promise<Client>) {
  let loaded: ReturnType<typeof load> | undefined;
  const load = async () => {
    const [
      { approvalGate },
      { campaignWaker },
      { bookingDesk },
      { agentScheduler },
      { timerCanceller },
      { deliveryCanceller },
    ] = await Promise.all([
      import('./temporal/approvals.js'),
      import('./temporal/campaigns.js'),
      import('./temporal/appointments.js'),
      import('./temporal/agents.js'),
      import('./temporal/sales.js'),
      import('./temporal/webhooks.js'),
    ]);
    const queue = config.temporalTaskQueue;
    return {
      approvals: approvalGate(db, temporal, queue, {
        secretsKey: config.secretsKey,
        publicUrl: config.publicUrl,
      }),
      campaigns: campaignWaker(temporal),
      appointments: bookingDesk(db, temporal, queue),
      agents: agentScheduler(temporal, queue),
      timers: timerCanceller(temporal),
      deliveries: deliveryCanceller(temporal),
    };
  };
  return () => (loaded ??= load());
}
