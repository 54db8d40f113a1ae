import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { leadIdField, LEADS_WRITE, lockLead } from '../../leads';
import { CHANNELS } from '../../kernel/channels';
import { messageBody } from '../channels';
import { recordInboundMessageIn } from '../messages';
import { LEAD_MESSAGE } from '../views';

/** A lead's reply arriving on a channel, as a channel provider reports it. */
export const recordInboundMessage = defineOperation({
  name: 'message.inbound',
  title: 'Record an inbound message',
  description:
    'Records a message a lead sent on a channel, as a channel provider reports it; emits message.received and reply.received and marks the lead as needing attention.',
  returns: 'The stored message.',
  requirement: LEADS_WRITE,
  reach: 'record',
  operatorOnly: true,
  ...WRITE,
  input: yup.object({
    leadId: leadIdField,
    channel: describe(
      yup
        .string()
        .oneOf([...CHANNELS], `channel must be one of ${CHANNELS.join(', ')}`)
        .required('channel is required'),
      'The channel it arrived on.',
    ),
    body: messageBody,
  }),
  output: LEAD_MESSAGE,
  doors: {
    admin: {
      command: 'message inbound',
      flags: (f) => ({ leadId: f.lead, channel: f.channel, body: f.body }),
    },
  },
  summary: (i) => `Record a ${i.channel} message from lead ${i.leadId}`,
  run: async (ctx, { leadId, channel, body }) => {
    const { lead } = await lockLead(ctx.data, leadId);
    const { message } = await recordInboundMessageIn(ctx, lead, { channel, body, isReply: true });
    ctx.audit(lead.workspace_id, { lead_id: lead.id, message_id: message.id });
    return message;
  },
});
