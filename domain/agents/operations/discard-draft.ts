import * as yup from 'yup';
import { WRITE, defineOperation } from '../../kernel/operation';
import { agentDraftsIn, pendingDraft } from '../repository/drafts';
import { AGENTS_WRITE } from '../requirements';
import { decidedByField, draftIdField } from '../schemas';
import { DRAFT, draftView } from '../views';

export const discardDraft = defineOperation({
  name: 'agent.discard_draft',
  title: "Discard an AI agent's draft",
  description: "Discards a draft an agent wrote: nothing is sent; a person's decision.",
  returns: 'The draft, DISCARDED.',
  requirement: AGENTS_WRITE,
  reach: 'record',
  ...WRITE,
  operatorOnly: true,
  input: yup.object({ draftId: draftIdField, by: decidedByField }),
  output: DRAFT,
  doors: { admin: { command: 'agent discard-draft', flags: (f) => ({ draftId: f.id, by: f.as }) } },
  summary: (i) => `Discard the agent's draft ${i.draftId}`,
  run: async (ctx, { draftId, by }) => {
    const d = await pendingDraft(ctx.data, draftId);
    const discarded = await agentDraftsIn(ctx.data.in(d.workspace_id)).decide(d.id, {
      status: 'DISCARDED',
      message_id: null,
      decided_by: by ?? 'operator',
    });
    ctx.audit(d.workspace_id, { draft_id: d.id, agent_id: d.agent_id, lead_id: d.lead_id });
    return draftView(discarded);
  },
});
