import * as yup from 'yup';
import { CHANNELS } from '../../kernel/channels';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { pageSize } from '../../kernel/validate';
import { leadIdField, LEADS_READ, mustHaveLead } from '../../leads';
import { channelOf } from '../channels';
import { messageView } from '../messages';
import { messagesIn } from '../repository/messages';
import { THREAD } from '../views';

/** A lead's messages on one channel (a thread), newest first. */
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
    channel: channelOf(CHANNELS, 'The channel of the thread'),
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
    await mustHaveLead(ctx.data, leadId);
    const rows = await messagesIn(ctx.data).thread(leadId, channel, limit);
    return { lead_id: leadId, channel, data: rows.map(messageView), count: rows.length };
  },
});
