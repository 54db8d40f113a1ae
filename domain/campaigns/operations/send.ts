import { defineOperation } from '../../kernel/operation';
import { GATED_START, start } from '../launching';
import { described, reach } from '../summaries';

export const sendCampaign = defineOperation({
  name: 'campaign.send',
  title: 'Send a one-step broadcast now',
  description:
    'Sends a draft one-step campaign to its audience now (inside the sending window, under the daily cap). Once approved, it reaches only the leads counted when it was asked that still match the audience; leads that joined the audience since are left out (left_out says how many, and why).',
  returns: 'The campaign, now RUNNING (once approved).',
  ...GATED_START,
  summary: async (i, look, effect) => `Send ${await described(i, look, effect)} to ${reach(effect)} now`,
  run: (ctx, { campaignId }) => start(ctx, campaignId, true),
});
