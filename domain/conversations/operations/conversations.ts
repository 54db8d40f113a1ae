import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, WRITE, defineOperation } from '../../kernel/operation';
import { pageSize } from '../../kernel/validate';
import { leadIdField, LEADS_READ, LEADS_WRITE, leadsIn, lockLead } from '../../leads';
import { CHANNELS } from '../../kernel/channels';
import { OUTBOUND_CHANNELS, messageBody, type OutboundChannel } from '../channels';
import { personReplied } from '../hooks';
import { messageView } from '../messages';
import { LEAD_MESSAGE, THREAD, THREADS } from '../views';
import { queueMessage } from '../outbound';
import { messagesIn } from '../repository';

const channelOf = (channels: readonly string[], what: string) =>
  describe(
    yup
      .string()
      .oneOf([...channels], `channel must be one of ${channels.join(', ')}`)
      .required('channel is required'),
    `${what}: ${channels.join(', ')}.`,
  );
const channel = channelOf(CHANNELS, 'The channel of the thread');
const OUTBOUND = Object.keys(OUTBOUND_CHANNELS) as OutboundChannel[];

const LAST_MESSAGE_BODY_LIMIT = 500;

/** A lead's conversations: one thread per channel, most recent first. */
export const listConversations = defineOperation({
  name: 'conversation.list',
  title: "List a lead's conversations",
  description:
    "A lead's conversation threads, one per channel, most recently active first, each with its message count and last message.",
  returns: '{ lead_id, data: [{ channel, messages, last_message }], count }.',
  requirement: LEADS_READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({ leadId: leadIdField }),
  output: THREADS,
  doors: { mcp: true },
  summary: (i) => `List the conversations of lead ${i.leadId}`,
  run: async (ctx, { leadId }) => {
    await leadsIn(ctx.data).mustExist(leadId);
    const threads = await messagesIn(ctx.data).threads(leadId, LAST_MESSAGE_BODY_LIMIT);
    threads.sort((a, b) => b.at.getTime() - a.at.getTime());
    const data = threads.map((t) => ({
      channel: t.channel,
      messages: t.messages,
      last_message: messageView(t),
    }));
    return { lead_id: leadId, data, count: data.length };
  },
});

export const getConversation = defineOperation({
  name: 'conversation.get',
  title: 'Read a conversation',
  description: "The messages of one of a lead's threads (a channel), newest first.",
  returns: '{ lead_id, channel, data: [message], count }.',
  requirement: LEADS_READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({
    leadId: leadIdField,
    channel,
    limit: describe(pageSize(100), 'How many messages, 1 to 100 (default 25).'),
  }),
  output: THREAD,
  doors: {
    mcp: true,
    admin: {
      command: 'conversation get',
      flags: (f) => ({ leadId: f.lead, channel: f.channel, limit: f.limit }),
    },
  },
  summary: (i) => `Read the ${i.channel} conversation of lead ${i.leadId}`,
  run: async (ctx, { leadId, channel, limit }) => {
    await leadsIn(ctx.data).mustExist(leadId);
    const rows = await messagesIn(ctx.data).thread(leadId, channel, limit);
    return { lead_id: leadId, channel, data: rows.map(messageView), count: rows.length };
  },
});

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
    await leadsIn(data).mark(lead.id, { needs_attention: false });
    if (ctx.actor.type !== 'agent') await personReplied.raise(data, lead.id);
    ctx.audit(lead.workspace_id, { lead_id: lead.id, message_id: row.id, channel });
    return { ...messageView(row), lead_id: lead.id };
  },
});
