import { generateKeyPairSync, hkdfSync, randomUUID, type JsonWebKey } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { Data } from '../kernel/data';
import { decryptSecret, encryptSecret } from '../webhooks';
import { signingKeysIn } from './repository/signing-keys';

/** A private signing key as the authorization server takes it (a JWK with its id and algorithm). */
export type SigningJwk = JsonWebKey & { kid: string; alg: 'ES256'; use: 'sig' };

/** A retired key is still published (and verifies what it signed) for a day, then dropped. */
const RETIRED_KEPT_HOURS = 24;

/** The key the signing keys are sealed with: derived from SECRETS_KEY for this one use. */
const sealingKey = (secretsKey: Buffer) =>
  Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'oauth signing keys', 32));

const newJwk = (): SigningJwk => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'ES256', use: 'sig' };
};

/** Seals a new key and stores it: it signs from the next start of each API process. */
async function addKey(data: Data, secretsKey: Buffer): Promise<string> {
  const jwk = newJwk();
  await signingKeysIn(data).add(jwk.kid, encryptSecret(JSON.stringify(jwk), sealingKey(secretsKey)));
  return jwk.kid;
}

/**
 * The authorization server's signing keys, the live one first (it signs), then the retired ones still
 * published. The first API process to start makes the first key; two starting together make one (an
 * advisory lock). A live key that does not open with SECRETS_KEY stops the start: the operator changed
 * the secret without rotating (a retired one is only dropped).
 */
export async function loadSigningKeys(db: DataSource, secretsKey: Buffer): Promise<SigningJwk[]> {
  return db.transaction(async (m) => {
    const data = new Data(m, undefined);
    const keys = signingKeysIn(data);
    let rows = await keys.published(RETIRED_KEPT_HOURS);
    if (!rows.some((r) => r.retired_at === null)) {
      await keys.lockForFirst();
      rows = await keys.published(RETIRED_KEPT_HOURS);
      if (!rows.some((r) => r.retired_at === null)) {
        await addKey(data, secretsKey);
        rows = await keys.published(RETIRED_KEPT_HOURS);
      }
    }
    const opened: SigningJwk[] = [];
    for (const r of rows) {
      try {
        opened.push(JSON.parse(decryptSecret(r.sealed, sealingKey(secretsKey))) as SigningJwk);
      } catch {
        // A retired key sealed under a former SECRETS_KEY is dropped; the live one must open.
        if (r.retired_at !== null) continue;
        throw new Error(
          `OAuth signing key ${r.kid} does not open with SECRETS_KEY: rotate the keys (npm run -s admin -- oauth rotate-key) after changing SECRETS_KEY`,
        );
      }
    }
    return opened;
  });
}

/** Makes a new live key and retires the others (still published for a day); answers the keys as listed. */
export async function rotateSigningKeys(data: Data, secretsKey: Buffer) {
  const keys = signingKeysIn(data);
  await keys.lockForFirst();
  await keys.retireAll();
  const kid = await addKey(data, secretsKey);
  return { live: kid, keys: await keys.listed() };
}

/** Every key with its state, newest first: never the key itself. */
export const listSigningKeys = (data: Data) => signingKeysIn(data).listed();
