import * as yup from 'yup';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { leadIdField, LEADS_READ, mustHaveLead } from '../../leads';
import { messageView } from '../messages';
import { messagesIn } from '../repository/messages';
import { THREADS } from '../views';

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
    await mustHaveLead(ctx.data, leadId);
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
