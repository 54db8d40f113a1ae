import { replyReceived } from './hooks';
import type { OperationContext } from '../kernel/operation';
import type { Classification } from '../kernel/event-catalogue';
import {
  announceIntent,
  applyInboundEffect,
  type InboundEffect,
  inboundEffect,
  isQualified,
  type Lead,
} from '../leads';
import type { Message } from './entities';
import { messagesIn, type MessageRecord } from './repository/messages';

/** A message as the conversation tools show it. */
export const messageView = (m: MessageRecord) => ({
  id: m.id,
  channel: m.channel,
  direction: m.direction,
  status: m.status,
  body: m.body,
  at: m.at.toISOString(),
  authenticity: m.authenticity,
});

/** An inbound message as recorded for its lead. */
export type MessageView = Pick<Message, 'id' | 'lead_id' | 'channel' | 'status' | 'body' | 'authenticity'> & {
  direction: 'inbound';
  at: string;
};

/**
 * Stores an inbound message on a (locked) lead, read by the reply rules, and marks the lead as
 * needing attention; the classification may move the lead's buying intent (one update of the lead for
 * both). A reply (a lead writing back on a channel) also emits reply.received with the classification,
 * once per stored message. Answers the message and the lead as it now is.
 *
 * An `unverified` email (its sender not proven) is stored and announced (message.received says it is
 * unverified) and does nothing else: the lead is not flagged, its intent does not move, no reply is
 * counted, and no agent reads it.
 *
 * `applied`: the caller wrote the message's effect on the lead already (an intake writes a lead once,
 * new or merged), and says what the lead's intent and qualification were before it.
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
    /** An email's verdict and the checks behind it; absent for channels without one. */
    authenticated?: Pick<Message, 'authenticity' | 'authentication'>;
  },
  /**
   * When the caller already wrote the message's effect on the lead (with the lead's other changes, in
   * one statement): the effect, and the lead's intent and qualification before it.
   */
  applied?: { effect: InboundEffect; before: { intent: Lead['intent']; qualified: boolean } },
): Promise<{ message: MessageView; lead: Lead }> {
  if (msg.authenticated?.authenticity === 'unverified')
    return { message: await storeInbound(ctx, lead, msg, null), lead };
  const effect = applied?.effect ?? inboundEffect(lead, msg.body);
  const { classification } = effect;
  const view = await storeInbound(ctx, lead, msg, classification);
  if (!applied) await applyInboundEffect(ctx.data.in(lead.workspace_id), lead.id, effect);
  if (effect.intent && classification) {
    const before = applied?.before ?? { intent: lead.intent, qualified: isQualified(lead) };
    await announceIntent(ctx, lead, effect.intent, { id: view.id, classification }, before);
  }
  if (msg.isReply) {
    await ctx.emit(
      lead.workspace_id,
      'reply.received',
      { type: 'lead', id: lead.id },
      {
        message_id: view.id,
        lead_id: lead.id,
        channel: msg.channel,
        classification,
      },
    );
    await replyReceived.raise(ctx, lead, { id: view.id, channel: msg.channel }, effect.reply);
  }
  return { message: view, lead: { ...lead, ...effect.changes } };
}

/** Stores an inbound message with what the provider and the checks said, and announces it (message.received). */
async function storeInbound(
  ctx: Pick<OperationContext, 'data' | 'emit'>,
  lead: Lead,
  msg: Parameters<typeof recordInboundMessageIn>[2],
  classification: Classification | null,
): Promise<MessageView> {
  const row = await messagesIn(ctx.data.in(lead.workspace_id)).record({
    lead_id: lead.id,
    channel: msg.channel,
    direction: 'inbound',
    status: 'received',
    body: msg.body,
    classification,
    ...msg.provider,
    ...msg.authenticated,
  });
  const view: MessageView = {
    id: row.id,
    lead_id: lead.id,
    channel: msg.channel,
    direction: 'inbound',
    status: 'received',
    body: msg.body,
    at: row.at.toISOString(),
    authenticity: msg.authenticated?.authenticity ?? null,
  };
  await ctx.emit(
    lead.workspace_id,
    'message.received',
    { type: 'lead', id: lead.id },
    {
      message_id: row.id,
      lead_id: lead.id,
      channel: msg.channel,
      direction: 'inbound',
      body: msg.body,
      received_at: view.at,
      authenticity: view.authenticity,
    },
  );
  return view;
}
