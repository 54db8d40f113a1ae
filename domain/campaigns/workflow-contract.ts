import { defineUpdate } from '@temporalio/workflow';

/**
 * What the campaign's workflow (`workflows/campaign.ts`) and those who talk to it share. Pure
 * definitions, safe inside the workflow sandbox.
 */
export const CAMPAIGN_WORKFLOW_TYPE = 'campaignWorkflow';

export type CampaignInput = {
  campaignId: string;
  /** Batches one run sends before it continues as new (keeping its history small). */
  batchesPerRun?: number;
};

/**
 * The campaign's status changed (it is recorded first; the row is the truth): wake the workflow so it
 * acts now rather than at its next check. Updates, so the caller knows the workflow heard it.
 */
export const pauseUpdate = defineUpdate<void>('pause');
export const resumeUpdate = defineUpdate<void>('resume');
