import * as yup from 'yup';
import { describe } from '../kernel/json-schema';

/**
 * The channels a message can be sent to a lead on, and which of the lead's addresses each reaches:
 * email over SMTP; SMS and WhatsApp through the SMS provider (Twilio's Messages API sends both).
 */
export const OUTBOUND_CHANNELS = { email: 'email', sms: 'phone', whatsapp: 'phone' } as const;
export type OutboundChannel = keyof typeof OUTBOUND_CHANNELS;

const MAX_MESSAGE_LENGTH = 10_000;

/** A message's text, inbound or outbound. */
export const messageBody = describe(
  yup
    .string()
    .trim()
    .min(1, 'body must not be empty')
    .max(MAX_MESSAGE_LENGTH, `body must be at most ${MAX_MESSAGE_LENGTH} characters`)
    .required('body is required'),
  'The message text.',
);

/** An input's channel field: one of `channels`, described as `what` and the list. */
export const channelOf = (channels: readonly string[], what: string) =>
  describe(
    yup
      .string()
      .oneOf([...channels], `channel must be one of ${channels.join(', ')}`)
      .required('channel is required'),
    `${what}: ${channels.join(', ')}.`,
  );
