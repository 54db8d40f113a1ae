import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineUpdate,
  proxyActivities,
  setHandler,
  setWorkflowOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CampaignInput } from '../domain/campaigns/workflow-contract';

/**
 * The campaign's status changed (it is recorded first; the row is the truth): wake the workflow so it
 * acts now rather than at its next check. Updates, so the caller knows the workflow heard it.
 */
export const pauseUpdate = defineUpdate<void>('pause');
export const resumeUpdate = defineUpdate<void>('resume');

// A batch heartbeats before each group of hand-overs: a worker that dies mid-batch is noticed in
// 30 s, and the retried batch fails what was cut off (never sends it again) and goes on.
const { sendCampaignBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/** A paused campaign checks its row this often, in case the resume's wake-up never arrived. */
const PAUSED_CHECK = '1 hour';
const BATCHES_PER_RUN = 500;

/**
 * One launched campaign, `campaign:<id>`: batch after batch until every recipient is done, sleeping
 * while nothing is due, the window is shut or the day's cap is spent. The rows hold the state, so a
 * run continues as new after a few hundred batches and its history stays small for any audience.
 */
export async function campaignWorkflow(input: CampaignInput): Promise<{ status: string; batches: number }> {
  let woken = false;
  const wake = () => {
    woken = true;
  };
  setHandler(pauseUpdate, wake);
  setHandler(resumeUpdate, wake);
  const limit = input.batchesPerRun ?? BATCHES_PER_RUN;
  for (let batches = 0; batches < limit; batches++) {
    const outcome = await sendCampaignBatch(input.campaignId, Date.now());
    if (outcome.state === 'stopped' && outcome.status === 'COMPLETED') {
      await condition(allHandlersFinished);
      return { status: 'COMPLETED', batches: batches + 1 };
    }
    if (outcome.state === 'sent') continue;
    woken = false;
    await condition(() => woken, outcome.state === 'wait' ? outcome.ms : PAUSED_CHECK);
  }
  await condition(allHandlersFinished);
  return continueAsNew<typeof campaignWorkflow>({
    campaignId: input.campaignId,
    batchesPerRun: input.batchesPerRun,
  });
}

// Auto-upgrade: a campaign runs for weeks (each run continues as new on the current version); a change
// to it ships behind patched() (docs/temporal.md, "Deploys").
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, campaignWorkflow);
