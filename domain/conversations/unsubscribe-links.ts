import { createHmac, timingSafeEqual } from 'node:crypto';
import { UUID_PATTERN } from '../kernel/validate';

const MAC_BYTES = 16;

/**
 * One-click unsubscribe links: the token names a lead and carries an HMAC of it (keyed from
 * SECRETS_KEY), so it is unguessable, needs no API key and no stored row, and cannot be turned into
 * another lead's link. It only ever unsubscribes that lead's email address.
 */
export const unsubscribeLinks = (secretsKey: Buffer) => {
  const key = createHmac('sha256', secretsKey).update('unsubscribe-links/v1').digest();
  const macOf = (lead: Buffer) => createHmac('sha256', key).update(lead).digest().subarray(0, MAC_BYTES);
  const token = (leadId: string): string => {
    const lead = Buffer.from(leadId.replace(/-/g, ''), 'hex');
    return Buffer.concat([lead, macOf(lead)]).toString('base64url');
  };
  return {
    token,

    /** The lead's link as people reach the service (`PUBLIC_URL`). */
    url: (publicUrl: string, leadId: string) =>
      `${publicUrl.replace(/\/$/, '')}${UNSUBSCRIBE_PATH}/${token(leadId)}`,

    /** The lead a token names, when its MAC is right (compared in constant time). */
    leadOf: (presented: string): string | undefined => {
      if (!/^[A-Za-z0-9_-]{43}$/.test(presented)) return undefined;
      const raw = Buffer.from(presented, 'base64url');
      if (raw.length !== 16 + MAC_BYTES) return undefined;
      const lead = raw.subarray(0, 16);
      if (!timingSafeEqual(raw.subarray(16), macOf(lead))) return undefined;
      const hex = lead.toString('hex');
      const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      return UUID_PATTERN.test(id) ? id : undefined;
    },
  };
};

/** The path the service serves unsubscribe links under. */
export const UNSUBSCRIBE_PATH = '/u';
