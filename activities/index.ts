import type { EmailProvider } from './providers/email';
import type { Services } from '../domain/kernel/operation';
import { createAppointmentActivities } from './appointment';
import { createApprovalActivities } from './approval';
import { createDeliveryActivities, type DeliveryDeps } from './deliver';
import { createMaintenanceActivities, type MaintenanceDeps } from './maintenance';
import { createMemberMailActivities } from './member-mail';
import { createPingActivities } from './ping';
import { createSendActivities, type SendDeps } from './send-message';
import { createCampaignActivities } from './campaign';
import { createAgentRunActivities } from './agent-run';
import { createSourcingActivities } from './sourcing';
import { createSalesActivities } from './sales';

export type ActivityDeps = Omit<
  DeliveryDeps,
  'db' | 'secretsKey' | 'allowPrivateTargets' | 'cancelWorkflows'
> & {
  /** What operations run with here (an approved request, a bounce), built whole by the worker's root. */
  services: Services;
  maintenance: Omit<MaintenanceDeps, 'db'>;
  channels: Omit<SendDeps, 'db' | 'services' | 'secretsKey'> & {
    /** Campaign batches: recipients per batch and messages handed over at once. */
    campaignBatchSize?: number;
    campaignConcurrency?: number;
    /**
     * Mail to members (sign-in links, approvals waiting): the same SMTP server, counted apart from
     * messages to leads; `email` when absent.
     */
    memberEmail?: EmailProvider;
  };
};

/** All activities, built from their dependencies so tests can pass fakes. */
export const createActivities = (deps: ActivityDeps) => {
  const { services } = deps;
  const { db, secretsKey } = services;
  return {
    ...createPingActivities(deps),
    ...createDeliveryActivities({ ...deps, db, ...services.webhooks }),
    ...createMaintenanceActivities({ db, ...deps.maintenance }),
    ...createApprovalActivities(services, deps.metrics),
    ...createSendActivities({ db, services, secretsKey, ...deps.channels }),
    ...createMemberMailActivities({
      db,
      secretsKey,
      email: deps.channels.memberEmail ?? deps.channels.email,
    }),
    ...createCampaignActivities({
      services,
      secretsKey,
      ...deps.channels,
      batchSize: deps.channels.campaignBatchSize,
      concurrency: deps.channels.campaignConcurrency,
    }),
    ...createAppointmentActivities(services),
    ...createAgentRunActivities(services),
    ...createSourcingActivities(services),
    ...createSalesActivities(services),
  };
};

export type Activities = ReturnType<typeof createActivities>;
