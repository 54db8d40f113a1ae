import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The selector `npm run dev` signs with; its key is `<data dir>/dkim/dev.pem`. */
export const DEV_DKIM_SELECTOR = 'dev';

/**
 * The dev stack's DKIM key: a 2048-bit RSA key made on the first start and kept, so mail read in
 * MailDev carries a signature that `mail dns` can print the record for, and that record stays valid
 * across restarts. Readable by its owner only.
 */
export function devDkimKey(dataDir: string): { selector: string; file: string } {
  const dir = path.join(dataDir, 'dkim');
  const file = path.join(dir, `${DEV_DKIM_SELECTOR}.pem`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    // Written whole under another name first: a start cut off mid-write leaves no half a key behind.
    const staging = `${file}.tmp-${process.pid}`;
    writeFileSync(staging, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    renameSync(staging, file);
  }
  return { selector: DEV_DKIM_SELECTOR, file };
}
