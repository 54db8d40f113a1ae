/**
 * Webhook signature verification for receivers. It needs only `node:crypto` and the service's own
 * signer (`domain/webhooks/signing.ts`, also dependency-free): copy both files into a receiver as they are.
 *
 * Header: `service-signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` over `<t>.<raw body>`, keyed with the
 * endpoint's signing secret exactly as shown (`whsec_` prefix included, not base64-decoded).
 */
import { timingSafeEqual } from 'node:crypto';
import { assertSecret, computeSignature } from '../domain/webhooks/signing';

export { signWebhook } from '../domain/webhooks/signing';

export type WebhookEvent = {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
};

export type VerifyFailureReason =
  | 'missing_signature'
  | 'malformed_signature'
  | 'timestamp_out_of_tolerance'
  | 'no_matching_signature'
  | 'invalid_json';

export type VerifyResult = { ok: true; event: WebhookEvent } | { ok: false; reason: VerifyFailureReason };

export type VerifyOptions = {
  /** The raw request body, byte for byte. Prefer the Buffer; a string is signed as its UTF-8 bytes. */
  payload: string | Buffer;
  signatureHeader: string | undefined;
  secret: string;
  /** Maximum distance between `t` and this receiver's clock. Default 300. */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
};

export const DEFAULT_TOLERANCE_SECONDS = 300;

// A v1 signature is a SHA-256 digest: 32 bytes, 64 hex characters.
const V1_PATTERN = /^[0-9a-f]{64}$/i;
// Bounded so Number() stays exact; 15 digits is far beyond any plausible date.
const TIMESTAMP_PATTERN = /^\d{1,15}$/;

type ParsedHeader = { timestamp: string; signatures: Buffer[] };

function parseSignatureHeader(header: string): ParsedHeader | undefined {
  let timestamp: string | undefined;
  const signatures: Buffer[] = [];
  for (const rawPart of header.split(',')) {
    const part = rawPart.trim();
    if (part === '') continue; // tolerate a trailing or doubled comma
    const eq = part.indexOf('=');
    if (eq <= 0) return undefined;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      // Two timestamps would make it ambiguous which one was signed.
      if (timestamp !== undefined || !TIMESTAMP_PATTERN.test(value)) return undefined;
      timestamp = value;
    } else if (key === 'v1') {
      // Buffer.from(..., 'hex') silently stops at the first bad character, so validate first.
      if (!V1_PATTERN.test(value)) return undefined;
      signatures.push(Buffer.from(value, 'hex'));
    }
    // Other schemes (v0, future ones) are ignored so the sender can add them without breaking receivers.
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

function toEvent(payload: string | Buffer): WebhookEvent | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof payload === 'string' ? payload : payload.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const e = parsed as Record<string, unknown>;
  if (typeof e.id !== 'string' || typeof e.type !== 'string' || typeof e.created_at !== 'string')
    return undefined;
  if (typeof e.data !== 'object' || e.data === null || Array.isArray(e.data)) return undefined;
  return parsed as WebhookEvent;
}

/** Verifies a delivery and returns its parsed envelope, or the first check that failed. */
export function verifyWebhook(opts: VerifyOptions): VerifyResult {
  const { payload, signatureHeader, secret } = opts;
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  assertSecret(secret);

  if (signatureHeader === undefined || signatureHeader.trim() === '')
    return { ok: false, reason: 'missing_signature' };
  const header = parseSignatureHeader(signatureHeader);
  if (!header) return { ok: false, reason: 'malformed_signature' };

  // HMAC over the timestamp text exactly as received, not a re-rendered number, since that text was signed.
  const expected = computeSignature(header.timestamp, payload, secret);
  // No early exit: the time taken must not reveal which offered signature, if any, matched.
  let matched = false;
  for (const candidate of header.signatures) {
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  // Authenticity first, so a forged request is reported as forged whatever timestamp it claims.
  if (!matched) return { ok: false, reason: 'no_matching_signature' };

  // A genuine but old (or far-future) request is a replay or a badly skewed clock.
  const nowSeconds = Math.floor((opts.now ? opts.now() : Date.now()) / 1000);
  if (Math.abs(nowSeconds - Number(header.timestamp)) > tolerance)
    return { ok: false, reason: 'timestamp_out_of_tolerance' };

  const event = toEvent(payload);
  if (!event) return { ok: false, reason: 'invalid_json' };
  return { ok: true, event };
}
