/**
 * The webhook signature, in one place for the sender (the delivery activity) and for receivers
 * (receiver/verify.ts imports it). Only `node:crypto`, so a receiver can copy it as it is.
 *
 * Header: `service-signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` over `<t>.<raw body>`, keyed with the
 * endpoint's signing secret exactly as shown (`whsec_` prefix included, not base64-decoded).
 */
import { createHmac } from 'node:crypto';

/** HMAC-SHA256 of `<t>.<raw body>`; the raw bytes are signed, so re-serialised JSON would not match. */
export function computeSignature(timestamp: string, payload: string | Buffer, secret: string): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(payload).digest();
}

export function assertSecret(secret: string): void {
  // An unset secret is a configuration error; failing loudly beats silently signing with "".
  if (typeof secret !== 'string' || secret.length === 0) throw new TypeError('webhook secret must be set');
}

/** Returns the `service-signature` header value for `payload` signed at `timestampSeconds`. */
export function signWebhook(payload: string | Buffer, secret: string, timestampSeconds: number): string {
  assertSecret(secret);
  // Anything but a plain integer would render as `1.5` or `1e+21`, which receivers reject as malformed.
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0)
    throw new RangeError('timestampSeconds must be a non-negative integer');
  const t = String(timestampSeconds);
  return `t=${t},v1=${computeSignature(t, payload, secret).toString('hex')}`;
}
