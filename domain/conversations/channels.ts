/** The channels a lead can write or be written to on. */
export const CHANNELS = ['email', 'sms', 'whatsapp', 'voice', 'chat', 'form'] as const;

export const MAX_MESSAGE_LENGTH = 10_000;
