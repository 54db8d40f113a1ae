import * as yup from 'yup';
import { queueMessage } from '../../conversations';
import { DomainError, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, WRITE, defineOperation, type OperationContext } from '../../kernel/operation';
import { pageSize } from '../../kernel/validate';
import { lockLead } from '../../leads';
import { markChased } from '../chase';
import type { AgentDraft } from '../entities';
import { agentDraftsIn } from '../repository';
import { AGENTS_READ, AGENTS_WRITE } from '../requirements';
import { DRAFT, DRAFTS, draftView } from '../views';

const draftIdField = describe(
  yup
    .string()
    .typeError('${path} must be a UUID')
    .uuid('${path} must be a UUID')
    .required('${path} is required'),
  'The draft id.',
);
const decidedBy = describe(
  yup.string().trim().min(1).max(200, 'by must be at most 200 characters'),
  'Who decided (an email), for the record; the operator when absent.',
);

/** A draft still waiting for a person, held until the transaction ends; or why not. */
async function pendingDraft(ctx: OperationContext, id: string): Promise<AgentDraft> {
  const d = await agentDraftsIn(ctx.data).lock(id);
  if (!d) throw notFound('draft');
  if (d.status !== 'PENDING')
    throw new DomainError('conflict', `The draft was already ${d.status === 'SENT' ? 'sent' : 'discarded'}.`);
  return d;
}

export const listDrafts = defineOperation({
  name: 'agent.drafts',
  title: "AI agents' drafts waiting for review",
  description:
    'Messages that agents at review level "draft" wrote and that wait for a person to send or discard them (from the admin tool), oldest first.',
  returns: '{ data: [draft], count }.',
  requirement: AGENTS_READ,
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({
    agentId: describe(yup.string().uuid('agentId must be a UUID'), "Only this agent's drafts."),
    limit: describe(pageSize(100), 'How many, 1 to 100 (default 25).'),
  }),
  output: DRAFTS,
  doors: {
    mcp: true,
    admin: { command: 'agent drafts', flags: (f) => ({ agentId: f.agent, limit: f.limit }) },
  },
  summary: () => "List the agents' drafts waiting for review",
  run: async (ctx, i) => {
    const rows = await agentDraftsIn(ctx.data).list({
      agentId: i.agentId,
      status: 'PENDING',
      limit: i.limit,
    });
    return { data: rows.map(draftView), count: rows.length };
  },
});

/**
 * A person sends an agent's draft: it is queued on its channel now (refused, and left waiting, when the
 * lead opted out meanwhile) and leaves through the outbox like any message. Only a person does this,
 * from the admin tool: neither a key nor an agent can approve an agent's draft.
 */
export const sendDraft = defineOperation({
  name: 'agent.send_draft',
  title: "Send an AI agent's draft",
  description: "Sends a draft an agent wrote, as written, to its lead; a person's decision.",
  returns: 'The draft, SENT, with its message id.',
  requirement: AGENTS_WRITE,
  reach: 'record',
  ...WRITE,
  openWorld: true,
  operatorOnly: true,
  input: yup.object({ draftId: draftIdField, by: decidedBy }),
  output: DRAFT,
  doors: { admin: { command: 'agent send-draft', flags: (f) => ({ draftId: f.id, by: f.as }) } },
  summary: (i) => `Send the agent's draft ${i.draftId}`,
  run: async (ctx, { draftId, by }) => {
    const d = await pendingDraft(ctx, draftId);
    const { lead, data } = await lockLead(ctx.data.in(d.workspace_id), d.lead_id);
    const message = await queueMessage(data, lead, {
      channel: 'email',
      body: d.body,
      subject: d.subject ?? undefined,
    });
    const drafts = agentDraftsIn(data);
    const sent = await drafts.decide(d.id, {
      status: 'SENT',
      message_id: message.id,
      decided_by: by ?? 'operator',
    });
    await drafts.linkMessage(d.id, message.id);
    await markChased(data, ctx.emit, ctx.actor, lead);
    ctx.audit(d.workspace_id, {
      draft_id: d.id,
      agent_id: d.agent_id,
      lead_id: d.lead_id,
      message_id: message.id,
    });
    return draftView(sent);
  },
});

export const discardDraft = defineOperation({
  name: 'agent.discard_draft',
  title: "Discard an AI agent's draft",
  description: "Discards a draft an agent wrote: nothing is sent; a person's decision.",
  returns: 'The draft, DISCARDED.',
  requirement: AGENTS_WRITE,
  reach: 'record',
  ...WRITE,
  operatorOnly: true,
  input: yup.object({ draftId: draftIdField, by: decidedBy }),
  output: DRAFT,
  doors: { admin: { command: 'agent discard-draft', flags: (f) => ({ draftId: f.id, by: f.as }) } },
  summary: (i) => `Discard the agent's draft ${i.draftId}`,
  run: async (ctx, { draftId, by }) => {
    const d = await pendingDraft(ctx, draftId);
    const discarded = await agentDraftsIn(ctx.data.in(d.workspace_id)).decide(d.id, {
      status: 'DISCARDED',
      message_id: null,
      decided_by: by ?? 'operator',
    });
    ctx.audit(d.workspace_id, { draft_id: d.id, agent_id: d.agent_id, lead_id: d.lead_id });
    return draftView(discarded);
  },
});
