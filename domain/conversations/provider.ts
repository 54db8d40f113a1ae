/** An outbound message as a channel provider receives it. */
export type OutboundMessage = { messageId: string; channel: string; to: string; body: string };

/** Sends messages on a channel (email, SMS, WhatsApp...); a real provider plugs in here. */
export type ChannelProvider = {
  send: (message: OutboundMessage) => Promise<{ status: 'sent' | 'queued' | 'failed' }>;
};

/** The built-in provider: it hands nothing to a network and marks the message sent. */
export const builtInProvider: ChannelProvider = {
  send: async () => ({ status: 'sent' }),
};
