import * as yup from 'yup';
import { WRITE, defineOperation } from '../../kernel/operation';
import { campaignsIn } from '../repository/campaigns';
import { CAMPAIGNS_WRITE } from '../requirements';
import { campaignFields, checkSteps } from '../schemas';
import { CAMPAIGN, campaignView } from '../views';

const DEFAULT_WINDOW = { weekdays: [1, 2, 3, 4, 5], start_hour: 9, end_hour: 18 };
const DEFAULT_DAILY_CAP = 500;

export const createCampaign = defineOperation({
  name: 'campaign.create',
  title: 'Create a campaign (draft)',
  description:
    'Creates a draft campaign: its audience (a filter over leads), its steps (message templates with delays), a sending window and a daily cap. Nothing is sent until it is launched or sent, which a person approves.',
  returns: 'The draft campaign.',
  requirement: CAMPAIGNS_WRITE,
  reach: 'workspace',
  ...WRITE,
  input: yup.object({
    name: campaignFields.name.required('name is required'),
    channel: campaignFields.channel.required('channel is required'),
    audience: campaignFields.audience.default({}),
    steps: campaignFields.steps.required('steps is required'),
    window: campaignFields.window.default(DEFAULT_WINDOW),
    daily_cap: campaignFields.daily_cap.default(DEFAULT_DAILY_CAP),
  }),
  output: CAMPAIGN,
  doors: { mcp: true },
  summary: (i) => `Create the ${i.channel} campaign "${i.name}"`,
  run: async (ctx, i) => {
    checkSteps(i.channel, i.steps);
    const c = await campaignsIn(ctx.data).create({
      name: i.name,
      channel: i.channel,
      audience: i.audience,
      steps: i.steps,
      send_window: i.window,
      daily_cap: i.daily_cap,
    });
    ctx.audit(c.workspace_id, { campaign_id: c.id });
    return campaignView(c);
  },
});
