import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Campaign } from '../../domain/campaigns';
import type { Services, StartJob } from '../../domain/kernel/operation';
import { WORKSPACE_ID } from '../../domain/kernel/search-attributes';
import { campaignWorkflow, pauseUpdate, resumeUpdate } from '../../workflows/campaign';
import { startOnce } from './start-once';
import { campaignWorkflowId } from './workflow-ids';

/** A campaign the relay must start a workflow for. */
export type CampaignToStart = Pick<Campaign, 'id' | 'workspace_id' | 'name' | 'channel' | 'audience_size'>;

/** Starts a launched campaign's one workflow, `campaign:<id>`, saying in the Web UI what it sends. */
export const campaignStarter =
  (client: Client, taskQueue: string): StartJob<CampaignToStart> =>
  (c) =>
    startOnce(client, campaignWorkflow, {
      taskQueue,
      workflowId: campaignWorkflowId(c.id),
      args: [{ campaignId: c.id }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: `Campaign "${c.name}": ${c.channel} to ${c.audience_size ?? 0} recipients`,
      memo: { campaign_id: c.id, workspace_id: c.workspace_id, channel: c.channel, name: c.name },
      typedSearchAttributes: [{ key: WORKSPACE_ID, value: c.workspace_id }],
    });

/** Wakes a campaign's workflow after a pause or resume; one that is gone (completed) needs nothing. */
export const campaignWaker = (client: () => Promise<Client>): NonNullable<Services['campaigns']> => ({
  wake: async (campaignId, change) => {
    try {
      const handle = (await client()).workflow.getHandle(campaignWorkflowId(campaignId));
      await handle.executeUpdate(change === 'pause' ? pauseUpdate : resumeUpdate);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  },
});
