import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { pageSize } from '../../kernel/validate';
import { CAMPAIGN_STATUSES } from '../entities';
import { campaignsIn } from '../repository/campaigns';
import { CAMPAIGNS_READ } from '../requirements';
import { CAMPAIGNS, campaignView } from '../views';

export const listCampaigns = defineOperation({
  name: 'campaign.list',
  title: 'List campaigns',
  description: "The workspace's campaigns, newest first, optionally only those with one status.",
  returns: '{ data: [campaign], count }.',
  requirement: CAMPAIGNS_READ,
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({
    status: describe(
      yup.string().oneOf([...CAMPAIGN_STATUSES], `status must be one of ${CAMPAIGN_STATUSES.join(', ')}`),
      `Only campaigns in this status: ${CAMPAIGN_STATUSES.join(', ')}.`,
    ),
    limit: describe(pageSize(100), 'How many, 1 to 100 (default 25).'),
  }),
  output: CAMPAIGNS,
  doors: {
    mcp: true,
    admin: { command: 'campaign list', flags: (f) => ({ status: f.status, limit: f.limit }) },
  },
  summary: () => 'List campaigns',
  run: async (ctx, { status, limit }) => {
    const rows = await campaignsIn(ctx.data).list({
      status: status,
      limit,
    });
    return { data: rows.map(campaignView), count: rows.length };
  },
});
