import type { Data } from '../../kernel/data';
import { DomainError, notFound } from '../../kernel/errors';
import { AgentActionEntity, AgentDraftEntity, type AgentDraft } from '../entities';

const now = () => 'clock_timestamp()';

/** Drafts waiting for a person, and what became of them. */
export const agentDraftsIn = (data: Data) => {
  const rows = data.scoped(AgentDraftEntity);
  return {
    create: (
      values: Omit<
        AgentDraft,
        'id' | 'workspace_id' | 'status' | 'message_id' | 'decided_by' | 'decided_at' | 'created_at'
      >,
    ) => rows.insert(values),
    lock: (id: string) => rows.findOne({ id }, { lock: true }),
    list: (filter: { agentId?: string; status: AgentDraft['status']; limit: number }) =>
      rows.find(
        { status: filter.status, ...(filter.agentId ? { agent_id: filter.agentId } : {}) },
        { order: { created_at: 'ASC', id: 'ASC' }, take: filter.limit },
      ),
    decide: async (id: string, values: Pick<AgentDraft, 'status' | 'message_id' | 'decided_by'>) =>
      (await rows.update({ id }, { ...values, decided_at: now }))[0]!,
    /** The lead replied: the agent's drafts for it that wait for review will not be sent. */
    discardFor: (agentId: string, leadId: string, by: string) =>
      rows.set(
        { agent_id: agentId, lead_id: leadId, status: 'PENDING' },
        { status: 'DISCARDED', decided_by: by, decided_at: now },
      ),
    /** The drafted action points at the message the draft became. */
    linkMessage: async (draftId: string, messageId: string) => {
      await data.scoped(AgentActionEntity).set({ draft_id: draftId }, { message_id: messageId });
    },
  };
};

/** A draft still waiting for a person, held until the transaction ends; or why not. */
export async function pendingDraft(data: Data, id: string): Promise<AgentDraft> {
  const d = await agentDraftsIn(data).lock(id);
  if (!d) throw notFound('draft');
  if (d.status !== 'PENDING')
    throw new DomainError('conflict', `The draft was already ${d.status === 'SENT' ? 'sent' : 'discarded'}.`);
  return d;
}
