import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * The key member mail is sealed with: derived from SECRETS_KEY for this one use (HKDF-SHA256), so a
 * sealed mail and a webhook secret sealed with SECRETS_KEY itself never share a key.
 */
const mailKey = (secretsKey: Buffer) =>
  Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'member mail', 32));

/**
 * AES-256-GCM, laid out as webhook secrets are (iv 12 | tag 16 | ciphertext): a tampered row or another
 * key fails on opening rather than yielding text.
 */
export function seal(text: string, secretsKey: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', mailKey(secretsKey), iv);
  const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/** The sealed text, or undefined when it does not open with this key (SECRETS_KEY changed). */
export function unseal(blob: Buffer, secretsKey: Buffer): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', mailKey(secretsKey), blob.subarray(0, 12));
    decipher.setAuthTag(blob.subarray(12, 28));
    return Buffer.concat([decipher.update(blob.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
