import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { flagForAttention, leadIdField, LEADS_WRITE, lockLead } from '../../leads';
import { OUTBOUND_CHANNELS, channelOf, messageBody, type OutboundChannel } from '../channels';
import { personReplied } from '../hooks';
import { messageView } from '../messages';
import { queueMessage } from '../outbound';
import { LEAD_MESSAGE } from '../views';

const OUTBOUND = Object.keys(OUTBOUND_CHANNELS) as OutboundChannel[];

/**
 * Replies to a lead on a channel. The message is queued with the change and sent through the channel
 * provider right after it commits (a workflow retries transient failures); its status says how far it
 * got. A contact who opted out or is blocked on that channel (or on all) is refused: nothing is stored.
 */
export const replyToConversation = defineOperation({
  name: 'conversation.reply',
  title: 'Reply to a lead',
  description:
    "Sends a message to a lead on a channel (email, sms or whatsapp) and records it in the conversation. It leaves right after the call (status queued, then sent, retrying or failed: read it back with conversation.get). Refused when the lead opted out of or is blocked on that channel, or has no address for it. An email answers the lead's last email (same thread) unless a subject is given.",
  returns: 'The outbound message, status queued.',
  requirement: LEADS_WRITE,
  reach: 'record',
  ...WRITE,
  openWorld: true,
  input: yup.object({
    leadId: leadIdField,
    channel: channelOf(OUTBOUND, 'The channel to send on'),
    body: messageBody,
    subject: describe(
      yup
        .string()
        .trim()
        .min(1, 'subject must not be empty')
        .max(200, 'subject must be at most 200 characters'),
      'Email only: the subject line (default: "Re:" and the subject of the lead\'s last email).',
    ),
  }),
  output: LEAD_MESSAGE,
  doors: { mcp: true },
  summary: (i) => `Send a ${i.channel} message to lead ${i.leadId}`,
  run: async (ctx, { leadId, channel, body, subject }) => {
    const { lead, data } = await lockLead(ctx.data, leadId);
    if (subject !== undefined && channel !== 'email')
      throw new DomainError('invalid_request', 'subject is for email only.', { field: 'subject' });
    const row = await queueMessage(data, lead, { channel: channel as OutboundChannel, body, subject });
    // The reply answers the lead's waiting messages, and a person's reply picks up any hand-over.
    await flagForAttention(data, lead.id, false);
    if (ctx.actor.type !== 'agent') await personReplied.raise(data, lead.id);
    ctx.audit(lead.workspace_id, { lead_id: lead.id, message_id: row.id, channel });
    return { ...messageView(row), lead_id: lead.id };
  },
});
