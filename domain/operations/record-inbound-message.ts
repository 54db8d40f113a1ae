import type { DataSource, EntityManager } from 'typeorm';
import * as yup from 'yup';
import { actorWorkspace, authorize, type Actor } from '../actor';
import { operationAudit, writeAudit } from '../audit';
import { emitEvent } from '../events/emit';
import { lockLead, type LeadRow } from '../leads/lead-row';
import { LEADS_WRITE } from '../leads/requirements';
import { validate } from '../validate';

export const CHANNELS = ['email', 'sms', 'whatsapp', 'voice', 'chat', 'form'] as const;
export const MAX_MESSAGE_LENGTH = 10_000;

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
  m: EntityManager,
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
  await emitEvent(m, lead.workspace_id, 'message.received', subject, {
    message_id: row.id,
    lead_id: lead.id,
    channel: msg.channel,
    direction: 'inbound',
    body: msg.body,
    received_at: view.at,
  });
  if (msg.isReply) {
    await emitEvent(m, lead.workspace_id, 'reply.received', subject, {
      message_id: row.id,
      lead_id: lead.id,
      channel: msg.channel,
      classification: null,
    });
  }
  return view;
}

const schema = yup.object({
  leadId: yup.string().uuid('lead must be a UUID').required('lead is required'),
  channel: yup
    .string()
    .oneOf([...CHANNELS], `channel must be one of ${CHANNELS.join(', ')}`)
    .required('channel is required'),
  body: yup
    .string()
    .trim()
    .min(1, 'body must not be empty')
    .max(MAX_MESSAGE_LENGTH, `body must be at most ${MAX_MESSAGE_LENGTH} characters`)
    .required('body is required'),
});

/** A lead's reply arriving on a channel, as a channel provider reports it. */
export async function recordInboundMessage(db: DataSource, actor: Actor, input: unknown) {
  authorize(actor, LEADS_WRITE);
  const { leadId, channel, body } = validate(schema, input);
  return db.transaction(async (m) => {
    const lead = await lockLead(m, leadId, actorWorkspace(actor));
    const message = await recordInboundMessageIn(m, lead, { channel, body, isReply: true });
    await writeAudit(
      m,
      operationAudit(actor.ctx, 'message.inbound', lead.workspace_id, {
        lead_id: lead.id,
        message_id: message.id,
      }),
    );
    return message;
  });
}
