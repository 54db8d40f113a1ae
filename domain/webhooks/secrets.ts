import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * `whsec_` + 32 random bytes in padded standard base64, the form Standard Webhooks' libraries decode.
 * The `service` scheme keys its HMAC with this whole string, prefix included; the `standard` scheme
 * with the decoded bytes (signing.ts). Secrets issued before Standard Webhooks were base64url without
 * padding: they still sign `service`, and `standardKey` refuses them.
 */
export const generateSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** AES-256-GCM: iv (12) | tag (16) | ciphertext. Tampering or a wrong key fails loudly on decrypt. */
export function encryptSecret(secret: string, key: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/** The secret, or undefined when it no longer decrypts (SECRETS_KEY changed without re-encrypting). */
export function readSecret(blob: Buffer, key: Buffer): string | undefined {
  try {
    return decryptSecret(blob, key);
  } catch {
    return undefined;
  }
}

export function decryptSecret(blob: Buffer, key: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', key, blob.subarray(0, 12));
  decipher.setAuthTag(blob.subarray(12, 28));
  return Buffer.concat([decipher.update(blob.subarray(28)), decipher.final()]).toString('utf8');
}
