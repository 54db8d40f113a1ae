import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export type KeyAndCert = { key: string; cert: string; madeWith: 'openssl' | 'node' };

const SUBJECT = 'chaos-bad-certificate.invalid';

/**
 * A certificate no client should trust (self-signed, for a name nobody owns): with openssl when it is
 * installed, otherwise built here, since node:crypto signs but has no certificate builder.
 */
export function selfSignedCertificate(): KeyAndCert {
  const dir = mkdtempSync(path.join(tmpdir(), 'chaos-cert-'));
  try {
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${SUBJECT}`,
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    if (made.status === 0)
      return {
        key: readFileSync(path.join(dir, 'key.pem'), 'utf8'),
        cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
        madeWith: 'openssl',
      };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return builtHere();
}

// DER, just enough of it for an X.509 v1 certificate.
const tlv = (tag: number, content: Buffer): Buffer => {
  const n = content.length;
  const length =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
};
const sequence = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
const oid = (dotted: string) => {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a! + b!];
  for (const n of rest) {
    const groups = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) groups.unshift((v & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
};
const utcTime = (d: Date) =>
  tlv(0x17, Buffer.from(d.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z', 'latin1'));
const name = (cn: string) =>
  sequence(tlv(0x31, sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from(cn, 'utf8')))));

function builtHere(): KeyAndCert {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const now = Date.now();
  // A positive serial: the top bit of the first byte clear.
  const serial = randomBytes(8);
  serial[0]! &= 0x7f;
  const tbs = sequence(
    tlv(0x02, serial),
    ecdsaWithSha256,
    name(SUBJECT),
    sequence(utcTime(new Date(now - 60_000)), utcTime(new Date(now + 2 * 86_400_000))),
    name(SUBJECT),
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const der = sequence(tbs, ecdsaWithSha256, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const pem = der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n');
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    cert: `-----BEGIN CERTIFICATE-----\n${pem}-----END CERTIFICATE-----\n`,
    madeWith: 'node',
  };
}
