import * as yup from 'yup';
import { queueMessage } from '../../conversations';
import { WRITE, defineOperation } from '../../kernel/operation';
import { lockLead } from '../../leads';
import { markChased } from '../chase';
import { agentDraftsIn, pendingDraft } from '../repository/drafts';
import { AGENTS_WRITE } from '../requirements';
import { decidedByField, draftIdField } from '../schemas';
import { DRAFT, draftView } from '../views';

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
  input: yup.object({ draftId: draftIdField, by: decidedByField }),
  output: DRAFT,
  doors: { admin: { command: 'agent send-draft', flags: (f) => ({ draftId: f.id, by: f.as }) } },
  summary: (i) => `Send the agent's draft ${i.draftId}`,
  run: async (ctx, { draftId, by }) => {
    const d = await pendingDraft(ctx.data, draftId);
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
