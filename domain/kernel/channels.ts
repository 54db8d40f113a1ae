/** An outbound message as a channel provider receives it. */
export type OutboundMessage = { messageId: string; channel: string; to: string; body: string };

/**
 * Sends messages on a channel (email, SMS, WhatsApp...). The kernel names the seam; the
 * conversations area provides the implementations.
 */
export type ChannelProvider = {
  send: (message: OutboundMessage) => Promise<{ status: 'sent' | 'queued' | 'failed' }>;
};
