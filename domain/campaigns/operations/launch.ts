import { defineOperation } from '../../kernel/operation';
import { GATED_START, start } from '../launching';
import { described, reach } from '../summaries';

export const launchCampaign = defineOperation({
  name: 'campaign.launch',
  title: 'Launch a campaign sequence',
  description:
    'Starts a draft campaign: fixes its audience now and sends its steps, each after its delay, inside the sending window and under the daily cap. Once approved, it reaches only the leads counted when it was asked that still match the audience; leads that joined the audience since are left out (left_out says how many, and why). A lead who replies, books or opts out leaves the sequence.',
  returns: 'The campaign, now RUNNING (once approved).',
  ...GATED_START,
  summary: async (i, look, effect) => `Launch ${await described(i, look, effect)} to ${reach(effect)}`,
  run: (ctx, { campaignId }) => start(ctx, campaignId, false),
});
