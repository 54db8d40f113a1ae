import { createHmac, timingSafeEqual } from 'node:crypto';
import { UUID_PATTERN } from '../kernel/validate';

const MAC_BYTES = 16;
const ADDRESS_BYTES = 8;
const LEAD_BYTES = 16;

/** What a link's token names: the lead, and (since v2) which of its addresses the email went to. */
export type UnsubscribeLink = {
  leadId: string;
  /**
   * Whether an address is the one the link was sent to; undefined for a v1 link (sent before links
   * named their address), which names the lead only.
   */
  sentTo?: (address: string) => boolean;
};

/**
 * One-click unsubscribe links: the token names a lead and the address the email went to (a keyed
 * hash of it, 8 bytes), and carries an HMAC of both (keyed from SECRETS_KEY), so it is unguessable,
 * needs no API key and no stored row, and cannot be turned into another lead's link or another
 * address's. It only ever unsubscribes the address it was sent to, even after the lead's changes.
 *
 * v1 tokens (lead and MAC, 43 characters) were sent before; they are still read, naming the lead only.
 */
export const unsubscribeLinks = (secretsKey: Buffer) => {
  const key = createHmac('sha256', secretsKey).update('unsubscribe-links/v1').digest();
  const addressKey = createHmac('sha256', secretsKey).update('unsubscribe-links/address').digest();
  const macOf = (signed: Buffer) => createHmac('sha256', key).update(signed).digest().subarray(0, MAC_BYTES);
  const addressHash = (address: string) =>
    createHmac('sha256', addressKey).update(address.trim().toLowerCase()).digest().subarray(0, ADDRESS_BYTES);
  const token = (leadId: string, address: string): string => {
    const signed = Buffer.concat([Buffer.from(leadId.replace(/-/g, ''), 'hex'), addressHash(address)]);
    return Buffer.concat([signed, macOf(signed)]).toString('base64url');
  };
  return {
    token,

    /** The link for an email to `address` as people reach the service (`PUBLIC_URL`). */
    url: (publicUrl: string, leadId: string, address: string) =>
      `${publicUrl.replace(/\/$/, '')}${UNSUBSCRIBE_PATH}/${token(leadId, address)}`,

    /** What a token names, when its MAC is right (compared in constant time). */
    read: (presented: string): UnsubscribeLink | undefined => {
      if (!/^[A-Za-z0-9_-]{43}$|^[A-Za-z0-9_-]{54}$/.test(presented)) return undefined;
      const raw = Buffer.from(presented, 'base64url');
      const signedBytes = raw.length - MAC_BYTES;
      if (signedBytes !== LEAD_BYTES && signedBytes !== LEAD_BYTES + ADDRESS_BYTES) return undefined;
      const signed = raw.subarray(0, signedBytes);
      if (!timingSafeEqual(raw.subarray(signedBytes), macOf(signed))) return undefined;
      const hex = signed.subarray(0, LEAD_BYTES).toString('hex');
      const leadId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      if (!UUID_PATTERN.test(leadId)) return undefined;
      if (signedBytes === LEAD_BYTES) return { leadId };
      const hash = signed.subarray(LEAD_BYTES);
      return { leadId, sentTo: (address) => timingSafeEqual(addressHash(address), hash) };
    },
  };
};

/** The path the service serves unsubscribe links under. */
export const UNSUBSCRIBE_PATH = '/u';
