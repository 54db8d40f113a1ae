import { agentReadsReply } from '../agents/handover';
import type { OperationContext } from '../kernel/operation';
import { applyIntent } from '../leads/intent';
import { classifyMessage } from '../leads/intent-rules';
import type { Message } from './entities';
import type { Lead } from '../leads/entities';
import { leadsIn } from '../leads/repository/leads';
import { messagesIn, type MessageRecord } from './repository';

/** A message as the conversation tools show it. */
export const messageView = (m: MessageRecord) => ({
  id: m.id,
  channel: m.channel,
  direction: m.direction,
  status: m.status,
  body: m.body,
  at: m.at.toISOString(),
});

/** An inbound message as recorded for its lead. */
export type MessageView = Pick<Message, 'id' | 'lead_id' | 'channel' | 'status' | 'body'> & {
  direction: 'inbound';
  at: string;
};

/**
 * Stores an inbound message on a (locked) lead, classified by the intent rules, and marks the lead as
 * needing attention; the classification may move the lead's buying intent. A reply (a lead writing
 * back on a channel) also emits reply.received with the classification, once per stored message.
 */
export async function recordInboundMessageIn(
  ctx: Pick<OperationContext, 'data' | 'emit'>,
  lead: Lead,
  msg: {
    channel: string;
    body: string;
    isReply: boolean;
    /** From a provider: its id for the message (a replay is recognised by it), an email's subject and thread. */
    provider?: Pick<Message, 'provider_message_id' | 'subject' | 'in_reply_to'>;
  },
): Promise<MessageView> {
  const data = ctx.data.in(lead.workspace_id);
  const classification = classifyMessage(msg.body);
  const row = await messagesIn(data).record({
    lead_id: lead.id,
    channel: msg.channel,
    direction: 'inbound',
    status: 'received',
    body: msg.body,
    classification,
    ...msg.provider,
  });
  await leadsIn(data).mark(lead.id, { needs_attention: true });
  const subject = { type: 'lead' as const, id: lead.id };
  const view: MessageView = {
    id: row.id,
    lead_id: lead.id,
    channel: msg.channel,
    direction: 'inbound',
    status: 'received',
    body: msg.body,
    at: row.at.toISOString(),
  };
  await ctx.emit(lead.workspace_id, 'message.received', subject, {
    message_id: row.id,
    lead_id: lead.id,
    channel: msg.channel,
    direction: 'inbound',
    body: msg.body,
    received_at: view.at,
  });
  if (classification) await applyIntent(ctx, lead, { id: row.id, classification });
  if (msg.isReply) {
    await ctx.emit(lead.workspace_id, 'reply.received', subject, {
      message_id: row.id,
      lead_id: lead.id,
      channel: msg.channel,
      classification,
    });
    await agentReadsReply(ctx, lead, { id: row.id, channel: msg.channel, body: msg.body });
  }
  return view;
}
