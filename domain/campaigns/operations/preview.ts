import * as yup from 'yup';
import { DomainError, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { workspaceNamed } from '../../identity';
import { leadIdField, leadNamed } from '../../leads';
import { campaignOf, campaignsIn } from '../repository/campaigns';
import { CAMPAIGNS_READ } from '../requirements';
import { campaignIdField } from '../schemas';
import { render, valuesFor } from '../templates';
import { PREVIEW } from '../views';

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
    const lead = await leadNamed(data, leadId);
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
