import { nullable, oneOf } from './shapes';

/**
 * The message vocabulary every area shares: the channels a lead writes or is written to on, an outbound
 * message's statuses and an inbound email's verdict. The conversations area owns messages; a lead's
 * recent activity, suppressions and the event catalogue speak of them with these words.
 */

/** The channels a lead can write or be written to on. */
export const CHANNELS = ['email', 'sms', 'whatsapp', 'voice', 'chat', 'form'] as const;

/**
 * An outbound message's life: `queued` (written with the change), `sending` (handed to the provider
 * right now), `sent` (the provider accepted it), `retrying` (a transient failure; it waits for its next
 * hand-over), `failed` (a permanent failure or the ladder ran out), `suppressed` (the contact opted out
 * or was blocked before it left), `bounced` (a proven bounce report came back: the provider took it, and
 * the receiving side refused it for good).
 * Inbound messages are `received`.
 */
export const OUTBOUND_STATUSES = [
  'queued',
  'sending',
  'sent',
  'retrying',
  'failed',
  'suppressed',
  'bounced',
] as const;

/** An inbound email's verdict: `verified` when its From domain passed DKIM or SPF aligned with it. */
export const AUTHENTICITIES = ['verified', 'unverified'] as const;
export type Authenticity = (typeof AUTHENTICITIES)[number];

/** An inbound email's verdict, as every door shows it. */
export const AUTHENTICITY = {
  ...nullable(oneOf(AUTHENTICITIES)),
  description:
    "An inbound email's verdict: verified (its sender's domain passed DKIM or SPF aligned with From) or unverified (not proven: it is kept and shown, and changes nothing); null for other channels, outbound messages and mail stored before verdicts were kept.",
};
