import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { WRITE, defineOperation } from '../../kernel/operation';
import { campaignOf, campaignsIn } from '../repository/campaigns';
import { CAMPAIGNS_WRITE } from '../requirements';
import { campaignFields, campaignIdField, checkSteps } from '../schemas';
import { CAMPAIGN, campaignView } from '../views';

export const updateCampaign = defineOperation({
  name: 'campaign.update',
  title: 'Change a draft campaign',
  description:
    'Changes a draft campaign; send only the fields to change. A campaign that was launched or sent can no longer be edited.',
  returns: 'The campaign as now stored.',
  requirement: CAMPAIGNS_WRITE,
  reach: 'record',
  ...WRITE,
  idempotent: true,
  input: yup.object({
    campaignId: campaignIdField,
    name: campaignFields.name,
    audience: campaignFields.audience.default(undefined),
    steps: campaignFields.steps,
    window: campaignFields.window.default(undefined),
    daily_cap: campaignFields.daily_cap,
  }),
  output: CAMPAIGN,
  doors: { mcp: true },
  summary: (i) => `Change campaign ${i.campaignId}`,
  run: async (ctx, { campaignId, window, ...changes }) => {
    const repo = campaignsIn(ctx.data);
    const c = await campaignOf(repo, campaignId, { lock: true });
    if (c.status !== 'DRAFT')
      throw new DomainError('conflict', `The campaign is ${c.status}: only a draft can be edited.`);
    if (changes.steps) checkSteps(c.channel, changes.steps);
    const updated = await campaignsIn(ctx.data.in(c.workspace_id)).change(c.id, {
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.audience !== undefined && { audience: changes.audience }),
      ...(changes.steps !== undefined && { steps: changes.steps }),
      ...(window !== undefined && { send_window: window }),
      ...(changes.daily_cap !== undefined && { daily_cap: changes.daily_cap }),
    });
    ctx.audit(c.workspace_id, { campaign_id: c.id });
    return campaignView(updated);
  },
});
