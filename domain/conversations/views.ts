import { integer, object, oneOf, page, string, uuid, dateTime } from '../kernel/shapes';
import { AUTHENTICITY, CHANNELS } from '../kernel/channels';

/** A message as the conversation tools show it. */
const MESSAGE = object(
  {
    id: uuid,
    channel: oneOf(CHANNELS),
    direction: oneOf(['inbound', 'outbound']),
    status: string(),
    body: string(),
    at: dateTime,
    authenticity: AUTHENTICITY,
  },
  { title: 'Message' },
);

/** A message recorded for a lead (inbound, or a reply sent). */
export const LEAD_MESSAGE = object(
  { ...(MESSAGE.properties as Record<string, object>), lead_id: uuid },
  { title: 'LeadMessage' },
);

export const THREADS = page(
  object({ channel: oneOf(CHANNELS), messages: integer({ minimum: 1 }), last_message: MESSAGE }),
  { title: 'ConversationList', extra: { lead_id: uuid } },
);

export const THREAD = page(MESSAGE, {
  title: 'Conversation',
  max: 100,
  extra: { lead_id: uuid, channel: oneOf(CHANNELS) },
});
