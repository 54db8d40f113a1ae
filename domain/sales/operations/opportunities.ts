import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { OPPORTUNITY_STAGES } from '../../kernel/event-catalogue';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, WRITE, defineOperation } from '../../kernel/operation';
import { page } from '../../kernel/shapes';
import { canMove, lockLead, moveStatus } from '../../leads';
import { closeOpportunity, openOpportunity } from '../opportunities';
import { opportunitiesIn } from '../repository';
import { SALES_READ, SALES_WRITE } from '../requirements';
import { idField } from '../schemas';
import { OPPORTUNITY, opportunityView } from '../views';

const STAGE_CHOICE = `stage must be ${OPPORTUNITY_STAGES.slice(0, -1).join(', ')} or ${OPPORTUNITY_STAGES.at(-1)}`;

const leadField = idField('lead', 'The lead.');

export const createOpportunity = defineOperation({
  name: 'opportunity.create',
  title: 'Open an opportunity by hand',
  description:
    'Makes a lead a sales opportunity (opportunity.created, origin MANUAL). A lead has at most one open opportunity; one that has one is refused.',
  returns: 'The opportunity.',
  requirement: SALES_WRITE,
  reach: 'workspace',
  ...WRITE,
  input: yup.object({
    lead: leadField,
    stage: describe(
      yup
        .string()
        .typeError('stage must be QUALIFIED or BOOKED')
        .oneOf(['QUALIFIED', 'BOOKED'], 'stage must be QUALIFIED or BOOKED')
        .default('QUALIFIED'),
      'Where it starts: QUALIFIED (default) or BOOKED.',
    ),
  }),
  output: OPPORTUNITY,
  doors: { admin: { command: 'opportunity create', flags: (f) => ({ lead: f.lead, stage: f.stage }) } },
  summary: (i) => `Open an opportunity for lead ${i.lead}`,
  run: async (ctx, i) => {
    const { lead, data } = await lockLead(ctx.data, i.lead);
    const open = await opportunitiesIn(data).openFor(lead.id);
    if (open)
      throw new DomainError('conflict', `The lead already has an open opportunity (${open.id}).`, {
        field: 'lead',
        opportunity_id: open.id,
      });
    const o = await openOpportunity({ ...ctx, data }, lead, 'MANUAL', i.stage);
    ctx.audit(lead.workspace_id, { opportunity_id: o.id, lead_id: lead.id });
    return opportunityView(o);
  },
});

export const closeOpportunityByHand = defineOperation({
  name: 'opportunity.close',
  title: 'Close an opportunity as won or lost',
  description:
    'Closes an open opportunity (opportunity.won or opportunity.lost, with the reason) and moves its lead to WON or LOST where the status rules allow. A closed one is refused.',
  returns: 'The opportunity, closed.',
  requirement: SALES_WRITE,
  reach: 'record',
  ...WRITE,
  input: yup.object({
    opportunity: idField('opportunity', 'The opportunity.'),
    outcome: describe(
      yup
        .string()
        .typeError('outcome must be won or lost')
        .lowercase()
        .required('outcome is required (won or lost)')
        .oneOf(['won', 'lost'], 'outcome must be won or lost'),
      'won or lost.',
    ),
    reason: describe(
      yup
        .string()
        .typeError('reason must be text')
        .trim()
        .required('reason is required')
        .min(1, 'reason is required')
        .max(500, 'reason is at most 500 characters'),
      'Why (it goes in the event).',
    ),
  }),
  output: OPPORTUNITY,
  doors: {
    admin: {
      command: 'opportunity close',
      flags: (f) => ({ opportunity: f.opportunity, outcome: f.outcome, reason: f.reason }),
    },
  },
  summary: (i) => `Close opportunity ${i.opportunity} as ${i.outcome}`,
  run: async (ctx, i) => {
    const found = await opportunitiesIn(ctx.data).find(i.opportunity);
    if (!found)
      throw new DomainError('not_found', 'No such opportunity in this workspace.', { field: 'opportunity' });
    const { lead, data } = await lockLead(ctx.data, found.lead_id);
    const o = (await opportunitiesIn(data).find(found.id, true))!;
    if (o.stage === 'WON' || o.stage === 'LOST')
      throw new DomainError('conflict', `The opportunity is already closed as ${o.stage}.`, {
        field: 'opportunity',
      });
    const outcome = i.outcome === 'won' ? 'WON' : 'LOST';
    const c = { ...ctx, data };
    if (lead.status !== outcome && canMove(lead.status, outcome))
      await moveStatus(c, lead, outcome, { follow_up: 'STOPPED' }, i.reason);
    else await closeOpportunity(c, lead, outcome, i.reason);
    ctx.audit(lead.workspace_id, { opportunity_id: o.id, lead_id: lead.id, outcome });
    return opportunityView((await opportunitiesIn(data).find(o.id))!);
  },
});

export const getOpportunity = defineOperation({
  name: 'opportunity.get',
  title: 'Read an opportunity',
  description: 'One opportunity: its lead, stage, motion, origin, and how it closed.',
  returns: 'The opportunity.',
  requirement: SALES_READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({ opportunity: idField('opportunity', 'The opportunity.') }),
  output: OPPORTUNITY,
  doors: { admin: { command: 'opportunity get', flags: (f) => ({ opportunity: f.opportunity ?? f.id }) } },
  summary: (i) => `Read opportunity ${i.opportunity}`,
  run: async (ctx, i) => {
    const o = await opportunitiesIn(ctx.data).find(i.opportunity);
    if (!o)
      throw new DomainError('not_found', 'No such opportunity in this workspace.', { field: 'opportunity' });
    return opportunityView(o);
  },
});

export const listOpportunities = defineOperation({
  name: 'opportunity.list',
  title: 'List opportunities',
  description: 'Opportunities, newest first, optionally of one lead or in one stage.',
  returns: '{ data: [opportunity], count }.',
  requirement: SALES_READ,
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({
    lead: describe(
      yup.string().typeError('lead must be a UUID').uuid('lead must be a UUID'),
      'Only this lead’s.',
    ),
    stage: describe(
      yup
        .string()
        .typeError(STAGE_CHOICE)
        .uppercase()
        .oneOf([...OPPORTUNITY_STAGES], STAGE_CHOICE),
      'Only this stage.',
    ),
    limit: describe(
      yup
        .number()
        .typeError('limit must be a number')
        .integer()
        .min(1)
        .max(100, 'limit is at most 100')
        .default(25),
      'At most this many (default 25, at most 100).',
    ),
  }),
  output: page(OPPORTUNITY),
  doors: {
    admin: {
      command: 'opportunity list',
      flags: (f) => ({ lead: f.lead, stage: f.stage, limit: f.limit }),
    },
  },
  summary: () => 'List opportunities',
  run: async (ctx, i) => {
    const rows = await opportunitiesIn(ctx.data).list(
      {
        ...(i.lead && { lead_id: i.lead }),
        ...(i.stage && { stage: i.stage }),
      },
      i.limit,
    );
    return { data: rows.map(opportunityView), count: rows.length };
  },
});
