import * as yup from 'yup';
import { DomainError, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import {
  LEADS_WRITE,
  liveLeadWithAddress,
  lockLead,
  normaliseContact,
  suppressAddress,
  workspaceTimezone,
} from '../../leads';
import { messageBody } from '../channels';
import { recordInboundMessageIn } from '../messages';
import { LEAD_MESSAGE } from '../views';
import { AUTHENTICITIES } from '../../kernel/channels';
import { messagesIn } from '../repository/messages';
import { EMAIL_HOOK, SMS_HOOK } from '../provider-hooks';
import { isStopWord } from '../sending';

const INBOUND = ['email', 'sms', 'whatsapp'] as const;

/**
 * A message a channel provider reports (the SMS provider's webhook, the inbound-email route), on the
 * lead its sender's address belongs to. The door has checked the provider's signature or the
 * workspace's secret; this refuses a replay (the provider's id was seen) and an address no lead has.
 * An SMS "STOP" (or a synonym) opts the sender out of that channel instead of counting as a reply. An
 * email carries the door's verdict: an unverified one is kept and acts on nothing.
 */
export const receiveMessage = defineOperation({
  name: 'message.receive',
  title: 'Receive a message from a provider',
  description:
    "Records a message a channel provider reports on the lead the sender's address belongs to: message.received and reply.received. An email whose sender is not proven (unverified) is stored and shown as such and changes nothing else. An SMS STOP opts the sender out (contact.unsubscribed). A replayed provider id is refused.",
  returns: 'The stored message.',
  requirement: LEADS_WRITE,
  reach: 'workspace',
  operatorOnly: true,
  ...WRITE,
  input: yup.object({
    channel: describe(
      yup
        .string()
        .oneOf([...INBOUND], `channel must be one of ${INBOUND.join(', ')}`)
        .required('channel is required'),
      'The channel it arrived on.',
    ),
    from: describe(yup.string().trim().required('from is required'), "The sender's address or number."),
    body: messageBody,
    providerMessageId: describe(
      yup.string().trim().max(300).required('providerMessageId is required'),
      "The provider's id for the message (an SMS sid, an email's Message-ID).",
    ),
    subject: describe(yup.string().max(1_000), "An email's subject."),
    inReplyTo: describe(yup.string().max(1_000), 'The Message-ID an email answers.'),
    authenticity: describe(
      yup.string().oneOf([...AUTHENTICITIES], `authenticity must be one of ${AUTHENTICITIES.join(', ')}`),
      "An email's verdict (the door computes it); an email without one is unverified.",
    ),
    authentication: describe(yup.string().max(500), "The checks behind an email's verdict, in words."),
  }),
  output: LEAD_MESSAGE,
  doors: { public: [SMS_HOOK, EMAIL_HOOK] },
  summary: (i) => `Receive a ${i.channel} message`,
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    if (await messagesIn(ctx.data).alreadyReceived(i.channel, i.providerMessageId))
      throw new DomainError('conflict', 'This message was already received.', {}, 'replayed provider id');
    const tz = await workspaceTimezone(ctx.data, workspaceId);
    const address =
      i.channel === 'email'
        ? normaliseContact({ email: i.from }, tz).email
        : normaliseContact({ phone: i.from }, tz).phone;
    const leadId = address ? await liveLeadWithAddress(ctx.data, address) : undefined;
    if (!leadId) throw notFound('lead with this address');
    const { lead } = await lockLead(ctx.data, leadId);
    const stop = i.channel !== 'email' && isStopWord(i.body);
    const authenticated =
      i.channel === 'email'
        ? { authenticity: i.authenticity ?? 'unverified', authentication: i.authentication ?? null }
        : undefined;
    const { message } = await recordInboundMessageIn(ctx, lead, {
      channel: i.channel,
      body: i.body,
      isReply: !stop,
      provider: {
        provider_message_id: i.providerMessageId,
        subject: i.subject ?? null,
        in_reply_to: i.inReplyTo ?? null,
      },
      ...(authenticated && { authenticated }),
    });
    const optOut = stop
      ? await suppressAddress(ctx, workspaceId, {
          address: address!,
          channel: i.channel,
          reason: 'unsubscribed',
          source: `${i.channel} STOP`,
        })
      : undefined;
    ctx.audit(workspaceId, {
      lead_id: lead.id,
      message_id: message.id,
      ...(authenticated && { authenticity: authenticated.authenticity }),
      ...(optOut && { suppression_id: optOut.id }),
    });
    return message;
  },
});
