import { WRITE, defineOperation } from '../../kernel/operation';
import { boolean, object } from '../../kernel/shapes';
import { brakeOnFeedback } from '../pausing';
import { CAMPAIGNS_WRITE } from '../requirements';
import { campaignIdInput } from '../schemas';
import { described } from '../summaries';

/**
 * The deliverability brake, run by a campaign's batch after the provider refused addresses as dead at
 * once (hard bounces): a running campaign over its workspace's limits pauses (reason deliverability).
 * Bounce and complaint reports run the same brake in their own transaction.
 */
export const checkDeliverability = defineOperation({
  name: 'campaign.check_deliverability',
  title: "Check a campaign's deliverability",
  description:
    'Pauses a running campaign whose proven hard bounces or spam complaints are over the workspace limits (campaign.paused, reason deliverability); otherwise changes nothing.',
  returns: '{ paused }.',
  requirement: CAMPAIGNS_WRITE,
  reach: 'record',
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
  input: campaignIdInput,
  output: object({ paused: boolean }),
  doors: {},
  summary: async (i, look) => `Check the deliverability of ${await described(i, look)}`,
  run: async (ctx, { campaignId }) => {
    const paused = await brakeOnFeedback(ctx, campaignId);
    if (paused) ctx.audit(paused.workspace_id, { campaign_id: paused.id, detail: paused.pause_detail });
    return { paused: !!paused };
  },
});
