import type { Services } from '../domain/kernel/operation';
import { createAppointmentActivities } from './appointment';
import { createApprovalActivities } from './approval';
import { createDeliveryActivities, type DeliveryDeps } from './deliver';
import { createMaintenanceActivities, type MaintenanceDeps } from './maintenance';
import { createPingActivities } from './ping';
import { createSendActivities, type SendDeps } from './send-message';
import { createCampaignActivities } from './campaign';
import { createAgentRunActivities } from './agent-run';
import { createSourcingActivities } from './sourcing';
import { createSalesActivities } from './sales';

export type ActivityDeps = DeliveryDeps & {
  /** Wakes a campaign's workflow when an approved resume runs here. */
  campaigns?: Services['campaigns'];
  maintenance: Omit<MaintenanceDeps, 'db'>;
  channels: Omit<SendDeps, 'db' | 'services' | 'secretsKey'> & {
    /** Campaign batches: recipients per batch and messages handed over at once. */
    campaignBatchSize?: number;
    campaignConcurrency?: number;
  };
};

/** All activities, built from their dependencies so tests can pass fakes. */
export const createActivities = (deps: ActivityDeps) => {
  // What an operation run by the worker (an approved request, a bounce) sees, as at every door.
  const services: Services = {
    db: deps.db,
    clock: deps.clock,
    campaigns: deps.campaigns,
    secretsKey: deps.secretsKey,
    cancelTimers: deps.cancelWorkflows,
    webhooks: {
      secretsKey: deps.secretsKey,
      allowPrivateTargets: deps.allowPrivateTargets,
      cancelWorkflows: deps.cancelWorkflows,
    },
  };
  return {
    ...createPingActivities(deps),
    ...createDeliveryActivities(deps),
    ...createMaintenanceActivities({ db: deps.db, ...deps.maintenance }),
    ...createApprovalActivities(services, deps.metrics),
    ...createSendActivities({ db: deps.db, services, secretsKey: deps.secretsKey, ...deps.channels }),
    ...createCampaignActivities({
      services,
      secretsKey: deps.secretsKey,
      ...deps.channels,
      batchSize: deps.channels.campaignBatchSize,
      concurrency: deps.channels.campaignConcurrency,
    }),
    ...createAppointmentActivities({ db: deps.db, clock: deps.clock, secretsKey: deps.secretsKey }),
    ...createAgentRunActivities(services),
    ...createSourcingActivities(services),
    ...createSalesActivities(services),
  };
};

export type Activities = ReturnType<typeof createActivities>;
