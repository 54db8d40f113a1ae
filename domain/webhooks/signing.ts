/**
 * The webhook signatures, in one place for the sender (the delivery activity) and for receivers
 * (receiver/verify.ts imports it). Only `node:crypto`, so a receiver can copy it as it is.
 *
 * `service` scheme: `service-signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` over `<t>.<raw body>`, keyed
 * with the endpoint's signing secret exactly as shown (`whsec_` prefix included, not base64-decoded).
 *
 * `standard` scheme (Standard Webhooks 1.0.0): `webhook-signature: v1,<base64 HMAC-SHA256>` over
 * `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the base64-decoded part after `whsec_`.
 *
 * During a rotation's overlap both secrets sign: two `v1=` items in one header, or two space-separated
 * `v1,` entries in the other. Receivers accept a delivery when any one matches.
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

function timestampText(timestampSeconds: number): string {
  // Anything but a plain integer would render as `1.5` or `1e+21`, which receivers reject as malformed.
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0)
    throw new RangeError('timestampSeconds must be a non-negative integer');
  return String(timestampSeconds);
}

/** Returns the `service-signature` header value for `payload` signed at `timestampSeconds`, by each secret. */
export function signWebhook(
  payload: string | Buffer,
  secrets: string | readonly string[],
  timestampSeconds: number,
): string {
  const all = typeof secrets === 'string' ? [secrets] : secrets;
  if (all.length === 0) throw new TypeError('webhook secret must be set');
  all.forEach(assertSecret);
  const t = timestampText(timestampSeconds);
  return [`t=${t}`, ...all.map((s) => `v1=${computeSignature(t, payload, s).toString('hex')}`)].join(',');
}

// Padded standard base64, as Standard Webhooks' libraries decode it (the JS one refuses anything else).
const STANDARD_SECRET = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/**
 * The HMAC key a `whsec_` secret stands for under Standard Webhooks (its decoded bytes, 24 to 64 of
 * them), or undefined for a secret not in that form.
 */
export function standardKey(secret: string): Buffer | undefined {
  const m = STANDARD_SECRET.exec(secret);
  if (!m) return undefined;
  const key = Buffer.from(m[1]!, 'base64');
  return key.length >= 24 && key.length <= 64 ? key : undefined;
}

/**
 * Returns the `webhook-signature` header value (Standard Webhooks 1.0.0) for message `id` at
 * `timestampSeconds`, by each key (`standardKey`).
 */
export function signStandard(
  id: string,
  payload: string | Buffer,
  keys: readonly Buffer[],
  timestampSeconds: number,
): string {
  if (keys.length === 0) throw new TypeError('webhook secret must be set');
  const t = timestampText(timestampSeconds);
  return keys
    .map(
      (k) => `v1,${createHmac('sha256', k).update(`${id}.${t}.`, 'utf8').update(payload).digest('base64')}`,
    )
    .join(' ');
}
