import type { OperationContext } from '../kernel/operation';
import type { Lead } from '../leads/entities';
import { leadsIn } from '../leads/repository/leads';
import { agentDraftsIn, agentRunsIn, handoffsIn } from './repository';
import { readReply } from './templates';

/**
 * A follow-up agent reads a reply from a lead it is chasing, in the transaction that stores it. A
 * message that needs a person (a complaint, a request to talk, a question no template answers) is
 * handed over: a handoff, `ai.escalated` and `lead.handover_required`; a "not interested" ends the
 * chase quietly. Either way follow-up stops for the lead and the agent's drafts for it are discarded.
 */
export async function agentReadsReply(
  ctx: Pick<OperationContext, 'data' | 'emit'>,
  lead: Lead,
  message: { id: string; channel: string; body: string },
): Promise<void> {
  if (lead.follow_up !== 'ACTIVE') return;
  const data = ctx.data.in(lead.workspace_id);
  const runs = agentRunsIn(data);
  const agentId = await runs.lastChaserOf(lead.id);
  if (!agentId) return;
  const reading = readReply(message.body);
  if (reading.kind === 'other') return;
  await leadsIn(data).mark(lead.id, { follow_up: 'STOPPED' });
  await agentDraftsIn(data).discardFor(agentId, lead.id, 'agent: the lead replied');
  if (reading.kind === 'declined') {
    await runs.record({
      agent_id: agentId,
      run_id: null,
      kind: 'skipped',
      lead_id: lead.id,
      message_id: message.id,
      outcome: 'the lead declined: follow-up stopped',
    });
    return;
  }
  const handoff = await handoffsIn(data).open({
    lead_id: lead.id,
    agent_id: agentId,
    message_id: message.id,
    channel: message.channel,
    reason: reading.reason,
    priority: reading.priority,
  });
  await runs.record({
    agent_id: agentId,
    run_id: null,
    kind: 'escalated',
    lead_id: lead.id,
    subject_id: handoff.id,
    message_id: message.id,
    outcome: `handed to a person: ${reading.reason.replaceAll('_', ' ')} (${reading.priority})`,
  });
  const subject = { type: 'lead' as const, id: lead.id };
  await ctx.emit(lead.workspace_id, 'ai.escalated', subject, {
    handoff_id: handoff.id,
    lead_id: lead.id,
    conversation_id: conversationId(lead.id, message.channel),
    reason: reading.reason,
    priority: reading.priority,
  });
  await ctx.emit(lead.workspace_id, 'lead.handover_required', subject, {
    lead_id: lead.id,
    reason: reading.reason,
    handoff_id: handoff.id,
    priority: reading.priority,
  });
}

/** A conversation is a lead's thread on one channel, as `conversation.get` addresses it. */
const conversationId = (leadId: string, channel: string) => `${leadId}:${channel}`;
