import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type TestCertificates = {
  /** The test CA's certificate (PEM): what a client adds to its trust. */
  ca: string;
  /** The server's private key (PEM). */
  key: string;
  /** The server's certificate (PEM) for `localhost`, `127.0.0.1` and `::1`, signed by the test CA. */
  cert: string;
};

let made: TestCertificates | undefined;

function openssl(dir: string, args: string[]) {
  const run = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (run.error) throw run.error;
  if (run.status !== 0) throw new Error(`openssl ${args[0]} failed: ${run.stderr}`);
}

/**
 * A test CA and a server certificate it signed, made once per process with the `openssl` CLI: a
 * server on loopback then speaks real TLS, and a client trusts it by adding `ca`, not by turning
 * verification off.
 */
export function testCertificates(): TestCertificates {
  if (made) return made;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'test-tls-'));
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-noenc'];
    openssl(dir, [
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=Test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    openssl(dir, ['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost']);
    writeFileSync(
      path.join(dir, 'server.ext'),
      [
        'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature',
        'extendedKeyUsage=serverAuth',
        'subjectKeyIdentifier=hash',
        'authorityKeyIdentifier=keyid',
      ].join('\n'),
    );
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-set_serial',
      `0x${Date.now().toString(16)}`,
      '-days',
      '2',
      '-extfile',
      'server.ext',
      '-out',
      'server.pem',
    ]);
    const read = (name: string) => readFileSync(path.join(dir, name), 'utf8');
    made = { ca: read('ca.pem'), key: read('server.key'), cert: read('server.pem') };
    return made;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
