import type { OperationContext } from '../kernel/operation';
import type { LeadRow } from '../leads/rows';

export type MessageView = {
  id: string;
  lead_id: string;
  channel: string;
  direction: 'inbound';
  status: string;
  body: string;
  at: string;
};

/**
 * Stores an inbound message on a (locked) lead and marks the lead as needing attention. A reply
 * (a lead writing back on a channel) also emits reply.received, once per stored message.
 */
export async function recordInboundMessageIn(
  { m, emit }: Pick<OperationContext, 'm' | 'emit'>,
  lead: LeadRow,
  msg: { channel: string; body: string; isReply: boolean },
): Promise<MessageView> {
  const [row] = await m.query<[{ id: string; at: Date }]>(
    `INSERT INTO messages (workspace_id, lead_id, channel, direction, status, body)
     VALUES ($1, $2, $3, 'inbound', 'received', $4) RETURNING id, at`,
    [lead.workspace_id, lead.id, msg.channel, msg.body],
  );
  await m.query(`UPDATE leads SET needs_attention = true, updated_at = clock_timestamp() WHERE id = $1`, [
    lead.id,
  ]);
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
  await emit(lead.workspace_id, 'message.received', subject, {
    message_id: row.id,
    lead_id: lead.id,
    channel: msg.channel,
    direction: 'inbound',
    body: msg.body,
    received_at: view.at,
  });
  if (msg.isReply) {
    await emit(lead.workspace_id, 'reply.received', subject, {
      message_id: row.id,
      lead_id: lead.id,
      channel: msg.channel,
      classification: null,
    });
  }
  return view;
}
