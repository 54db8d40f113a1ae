import type { OperationContext } from '../kernel/operation';
import { type Lead, type ReplyReading, setFollowUp } from '../leads';
import { agentDraftsIn } from './repository/drafts';
import { handoffsIn } from './repository/handoffs';
import { agentRunsIn } from './repository/runs';

/**
 * A follow-up agent acts on the reading of a reply from a lead it is chasing (domain/leads/reply-reading.ts,
 * the reading qualification uses), in the transaction that stores it. A message that needs a person (a
 * complaint, a request to talk or to book, a question no template answers) is handed over: a handoff,
 * `ai.escalated` and `lead.handover_required`; a "not interested" or "not now" ends the chase quietly.
 * Either way follow-up stops for the lead and the agent's drafts for it are discarded.
 */
export async function agentReadsReply(
  ctx: Pick<OperationContext, 'data' | 'emit'>,
  lead: Lead,
  message: { id: string; channel: string },
  reading: ReplyReading | null,
): Promise<void> {
  if (!reading || (!reading.handover && !reading.declined)) return;
  if (lead.follow_up !== 'ACTIVE') return;
  const data = ctx.data.in(lead.workspace_id);
  const runs = agentRunsIn(data);
  const agentId = await runs.lastChaserOf(lead.id);
  if (!agentId) return;
  await setFollowUp(data, lead.id, 'STOPPED');
  await agentDraftsIn(data).discardFor(agentId, lead.id, 'agent: the lead replied');
  const handover = reading.handover;
  if (!handover) {
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
    reason: handover.reason,
    priority: handover.priority,
  });
  await runs.record({
    agent_id: agentId,
    run_id: null,
    kind: 'escalated',
    lead_id: lead.id,
    subject_id: handoff.id,
    message_id: message.id,
    outcome: `handed to a person: ${handover.reason.replaceAll('_', ' ')} (${handover.priority})`,
  });
  const subject = { type: 'lead' as const, id: lead.id };
  await ctx.emit(lead.workspace_id, 'ai.escalated', subject, {
    handoff_id: handoff.id,
    lead_id: lead.id,
    conversation_id: conversationId(lead.id, message.channel),
    reason: handover.reason,
    priority: handover.priority,
  });
  await ctx.emit(lead.workspace_id, 'lead.handover_required', subject, {
    lead_id: lead.id,
    reason: handover.reason,
    handoff_id: handoff.id,
    priority: handover.priority,
  });
}

/** A conversation is a lead's thread on one channel, as `conversation.get` addresses it. */
const conversationId = (leadId: string, channel: string) => `${leadId}:${channel}`;
