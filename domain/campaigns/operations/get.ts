import * as yup from 'yup';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { campaignOf, campaignsIn } from '../repository/campaigns';
import { CAMPAIGNS_READ } from '../requirements';
import { campaignIdField } from '../schemas';
import { CAMPAIGN_WITH_PERFORMANCE, campaignView, performanceView } from '../views';

export const getCampaign = defineOperation({
  name: 'campaign.get',
  title: 'Read a campaign and its performance',
  description:
    'One campaign, with its performance per step: audience, sent (accepted by the provider), delivered (sent and not reported bounced), bounced, failed, skipped (opted out or blocked before it left), replied and opted out.',
  returns:
    '{ data: campaign, performance: [{ step, audience, sent, delivered, bounced, failed, skipped, replied, opted_out }] }.',
  requirement: CAMPAIGNS_READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({ campaignId: campaignIdField }),
  output: CAMPAIGN_WITH_PERFORMANCE,
  doors: { mcp: true, admin: { command: 'campaign get', flags: (f) => ({ campaignId: f.id }) } },
  summary: (i) => `Read campaign ${i.campaignId}`,
  run: async (ctx, { campaignId }) => {
    const c = await campaignOf(campaignsIn(ctx.data), campaignId);
    const figures = await campaignsIn(ctx.data.in(c.workspace_id)).figures(c);
    return { data: campaignView(c), performance: performanceView(c, figures) };
  },
});
