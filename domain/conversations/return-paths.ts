import { createHmac, timingSafeEqual } from 'node:crypto';

const MAC_CHARS = 20;
/** `bounces+<message id, 32 hex>.<mac, 20 hex>@domain`: 61 characters of local part, under RFC 5321's 64. */
const RETURN_PATH = /^bounces\+([0-9a-f]{32})\.([0-9a-f]{20})@[^\s@]+$/;

/**
 * Per-message return paths (VERP): each email leaves with the envelope sender
 * `bounces+<message id>.<mac>@<return-path domain>`, the MAC an HMAC of the message id keyed from
 * SECRETS_KEY. A bounce goes to the envelope sender, so a report delivered to such an address proves
 * it answers that email: nobody can write the address for a message without the key, and only the
 * email's own recipients ever saw it. Lower-case hex throughout, because a receiving MTA may lower-case
 * a local part.
 *
 * The message's id, not its `mail_id`: the report is matched by primary key (a campaign's send, or one
 * whose hand-over is not recorded yet, included), and knowing an id is no help without the MAC.
 */
export const returnPaths = (secretsKey: Buffer) => {
  const key = createHmac('sha256', secretsKey).update('return-paths/v1').digest();
  const macOf = (hex: string) => createHmac('sha256', key).update(hex).digest('hex').slice(0, MAC_CHARS);
  return {
    /** The envelope sender for an email of ours. */
    address: (messageId: string, domain: string) => {
      const hex = messageId.replace(/-/g, '').toLowerCase();
      return `bounces+${hex}.${macOf(hex)}@${domain}`;
    },

    /**
     * The message a return path names, when its MAC is right (compared in constant time); `mac` when
     * it has our shape and a wrong MAC (forged, or altered on the way); undefined when it is none of ours.
     */
    read: (address: string): { messageId: string } | 'mac' | undefined => {
      const m = RETURN_PATH.exec(address.trim().toLowerCase());
      if (!m) return undefined;
      const [, hex, mac] = m as unknown as [string, string, string];
      if (!timingSafeEqual(Buffer.from(mac), Buffer.from(macOf(hex)))) return 'mac';
      return {
        messageId: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
      };
    },
  };
};
