import { DomainError } from '../../kernel/errors';
import { defineOperation } from '../../kernel/operation';
import { GATED_START } from '../launching';
import { campaignOf, campaignsIn } from '../repository/campaigns';
import { described, reach } from '../summaries';
import { campaignView } from '../views';

export const resumeCampaign = defineOperation({
  name: 'campaign.resume',
  title: 'Resume a paused campaign',
  description:
    'Resumes a paused campaign where it stopped, whoever paused it (a person, or the deliverability brake).',
  returns: 'The campaign, RUNNING again (once approved).',
  ...GATED_START,
  summary: async (i, look, effect) =>
    `Resume ${await described(i, look, effect)}${effect ? ` for the ${reach(effect)} it was launched to` : ''}`,
  run: async (ctx, { campaignId }) => {
    const c = await campaignOf(campaignsIn(ctx.data), campaignId, { lock: true });
    if (c.status !== 'PAUSED')
      throw new DomainError(
        'conflict',
        `The campaign is ${c.status}: only a paused campaign can be resumed.`,
      );
    const resumed = await campaignsIn(ctx.data.in(c.workspace_id)).resume(c.id);
    ctx.afterCommit(async () => ctx.services.campaigns.wake(c.id, 'resume'));
    ctx.audit(c.workspace_id, { campaign_id: c.id, was_paused_by: c.paused_reason });
    return campaignView(resumed);
  },
});
