import { createHash, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { normaliseIp } from './ip-allowlist';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * A fresh bearer secret for a browser (a session's cookie, a sign-in link, the sign-in page's binding
 * cookie): 32 random bytes, base64url. Only its fingerprint is stored, so whoever reads the database
 * still cannot present it.
 */
export const newToken = (): string => randomBytes(32).toString('base64url');

/** Whether a presented value has a token's shape: anything else is refused before any lookup. */
export const looksLikeToken = (value: unknown): value is string =>
  typeof value === 'string' && TOKEN.test(value);

/**
 * The SHA-256 a token is stored and looked up by (a unique index finds it: nothing is compared in
 * JavaScript but two fingerprints already found, with `sameFingerprint`).
 */
export const fingerprintOf = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/** A client address as an inet column takes it, or null for anything that is not one. */
export const clientIp = (ip: string | null | undefined): string | null => {
  const normal = normaliseIp(ip ?? undefined);
  return normal && isIP(normal) ? normal : null;
};
