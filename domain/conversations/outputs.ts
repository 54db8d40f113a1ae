import { integer, nullable, object, oneOf, page, string, uuid, dateTime } from '../kernel/shapes';
import { CHANNELS } from './channels';
import { AUTHENTICITIES } from './entities';

/** An inbound email's verdict, as every door shows it. */
export const AUTHENTICITY = {
  ...nullable(oneOf(AUTHENTICITIES)),
  description:
    "An inbound email's verdict: verified (its sender's domain passed DKIM or SPF aligned with From) or unverified (not proven: it is kept and shown, and changes nothing); null for other channels, outbound messages and mail stored before verdicts were kept.",
};

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
