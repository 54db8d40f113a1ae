import type { DataSource } from 'typeorm';
import { createCampaign } from '../../domain/campaigns/operations/create';
import { launchCampaign as launch } from '../../domain/campaigns/operations/launch';
import { operatorActor } from '../../domain/kernel/actor';
import { runOperation } from '../../domain/kernel/runner';
import { testServices } from '../../tooling/services';

const actor = operatorActor({ door: 'admin', requestId: 'chaos-campaign' });

/**
 * A one-step email campaign to every live lead of the workspace, sendable at any hour, launched through
 * its operations (as an approved launch would run them). Its workflow is started by the worker's relay.
 */
export async function launchCampaign(db: DataSource, workspaceId: string, name: string): Promise<string> {
  const services = testServices(db);
  const c = await runOperation(
    services,
    createCampaign,
    actor,
    {
      name,
      channel: 'email',
      steps: [{ subject: 'Chaos campaign', body: 'Hello {first_name}', delay_hours: 0 }],
      window: { weekdays: [1, 2, 3, 4, 5, 6, 7], start_hour: 0, end_hour: 24 },
      daily_cap: 100_000,
    },
    { workspaceId },
  );
  await runOperation(services, launch, actor, { campaignId: c.id });
  return c.id;
}
