import * as yup from 'yup';
import { DomainError, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, WRITE, defineOperation } from '../../kernel/operation';
import { pageSize } from '../../kernel/validate';
import { workspaceNamed } from '../../identity';
import { leadIdField, leadsIn } from '../../leads';
import { CAMPAIGN_STATUSES, type Campaign, type Step } from '../entities';
import { campaignsIn } from '../repository';
import { CAMPAIGNS_READ, CAMPAIGNS_WRITE } from '../requirements';
import { campaignFields, campaignIdField } from '../schemas';
import { render, valuesFor } from '../templates';
import {
  CAMPAIGN,
  CAMPAIGNS,
  CAMPAIGN_WITH_PERFORMANCE,
  PREVIEW,
  campaignView,
  performanceView,
} from '../views';

const DEFAULT_WINDOW = { weekdays: [1, 2, 3, 4, 5], start_hour: 9, end_hour: 18 };
const DEFAULT_DAILY_CAP = 500;

/** A campaign of this workspace, or "not found". */
export async function campaignOf(
  repo: ReturnType<typeof campaignsIn>,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<Campaign> {
  const c = opts.lock ? await repo.lock(id) : await repo.find(id);
  if (!c) throw notFound('campaign');
  return c;
}

/** SMS has no subject: a step that gives one is refused, naming it. */
function checkSteps(channel: string, steps: Step[]) {
  const i = steps.findIndex((s) => s.subject !== undefined && s.subject !== '');
  if (channel === 'sms' && i >= 0)
    throw new DomainError('invalid_request', `steps[${i}].subject is for email campaigns only.`, {
      field: `steps[${i}].subject`,
    });
}

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

export const previewCampaign = defineOperation({
  name: 'campaign.preview',
  title: 'Preview a campaign step for a lead',
  description: 'Renders one step of a campaign for one lead, as it would be sent. Changes nothing.',
  returns: '{ campaign_id, lead_id, step, channel, to, subject, body }.',
  requirement: CAMPAIGNS_READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({
    campaignId: campaignIdField,
    leadId: leadIdField,
    step: describe(yup.number().integer().min(0, 'step must be 0 or more').default(0), 'The step, from 0.'),
  }),
  output: PREVIEW,
  doors: { mcp: true },
  summary: (i) => `Preview step ${i.step} of campaign ${i.campaignId} for lead ${i.leadId}`,
  run: async (ctx, { campaignId, leadId, step }) => {
    const c = await campaignOf(campaignsIn(ctx.data), campaignId);
    const data = ctx.data.in(c.workspace_id);
    const s = c.steps[step];
    if (!s)
      throw new DomainError('invalid_request', `step must be below ${c.steps.length}.`, { field: 'step' });
    const lead = await leadsIn(data).find(leadId);
    if (!lead) throw notFound('lead');
    const values = valuesFor(lead, (await workspaceNamed(data, c.workspace_id))?.name ?? '');
    return {
      campaign_id: c.id,
      lead_id: lead.id,
      step,
      channel: c.channel,
      to: c.channel === 'email' ? lead.email : lead.phone,
      subject: c.channel === 'email' && s.subject ? render(s.subject, values) : null,
      body: render(s.body, values),
    };
  },
});

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
