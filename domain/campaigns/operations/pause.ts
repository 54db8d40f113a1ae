import { DomainError } from '../../kernel/errors';
import { WRITE, defineOperation } from '../../kernel/operation';
import { pauseRunning } from '../pausing';
import { campaignOf, campaignsIn } from '../repository/campaigns';
import { CAMPAIGNS_WRITE } from '../requirements';
import { campaignIdInput } from '../schemas';
import { described } from '../summaries';
import { CAMPAIGN, campaignView } from '../views';

export const pauseCampaign = defineOperation({
  name: 'campaign.pause',
  title: 'Pause a campaign',
  description:
    'Pauses a running campaign before its next message; nothing more is sent until it is resumed (campaign.paused). Pausing one already paused changes nothing.',
  returns: 'The campaign, now PAUSED.',
  requirement: CAMPAIGNS_WRITE,
  reach: 'record',
  ...WRITE,
  idempotent: true,
  input: campaignIdInput,
  output: CAMPAIGN,
  doors: { mcp: true, admin: { command: 'campaign pause', flags: (f) => ({ campaignId: f.id }) } },
  summary: async (i, look) => `Pause ${await described(i, look)}`,
  run: async (ctx, { campaignId }) => {
    const c = await campaignOf(campaignsIn(ctx.data), campaignId, { lock: true });
    if (c.status === 'PAUSED') return campaignView(c);
    if (c.status !== 'RUNNING')
      throw new DomainError(
        'conflict',
        `The campaign is ${c.status}: only a running campaign can be paused.`,
      );
    const paused = await pauseRunning(ctx, c, { reason: 'person', detail: null });
    ctx.audit(c.workspace_id, { campaign_id: c.id });
    return campaignView(paused);
  },
});
