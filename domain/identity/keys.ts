import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY_PREFIX = 'lk_live_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 40;
/** Characters kept in clear for recognising a key in lists (`lk_live_` + 4). */
const DISPLAY_PREFIX_LENGTH = 12;
const KEY_PATTERN = /^lk_live_[0-9A-Za-z]{32,}$/;

/** A fresh key: `lk_live_` + 40 base62 characters (about 238 bits), unbiased by rejection sampling. */
export function generateApiKey(): string {
  let out = '';
  while (out.length < RANDOM_CHARS) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && out.length < RANDOM_CHARS) out += BASE62[byte % 62];
    }
  }
  return KEY_PREFIX + out;
}

export const fingerprintKey = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

export const displayPrefix = (key: string): string => key.slice(0, DISPLAY_PREFIX_LENGTH);

export const looksLikeApiKey = (candidate: string): boolean => KEY_PATTERN.test(candidate);

/** Constant-time equality for fingerprints (both SHA-256 digests, so equal length). */
export function sameFingerprint(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
