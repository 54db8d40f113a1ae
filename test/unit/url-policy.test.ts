import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decryptSecret, encryptSecret, generateSigningSecret } from '../../domain/webhooks/secrets';
import { checkTarget, isPublicAddress } from '../../domain/webhooks/url-policy';
import { classify } from '../../domain/webhooks/delivery-rules';

describe('webhook target policy', () => {
  it('refuses loopback, private, link-local and other non-public addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
    ]) {
      assert.equal(isPublicAddress(a), false, a);
    }
    for (const a of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111'])
      assert.equal(isPublicAddress(a), true, a);
  });

  it('wants https and a public address unless private targets are allowed (dev), which also allows http', async () => {
    assert.deepEqual(await checkTarget('http://93.184.216.34/hook', false), {
      ok: false,
      reason: 'the URL must use https',
    });
    const loop = await checkTarget('https://127.0.0.1/hook', false);
    assert.equal(loop.ok, false);
    assert.match((loop as { reason: string }).reason, /non-public address \(127\.0\.0\.1\)/);
    const local = await checkTarget('https://localhost/hook', false);
    assert.equal(local.ok, false, 'a name that resolves to loopback is refused too');
    assert.equal((await checkTarget('https://user:pw@93.184.216.34/', false)).ok, false);
    assert.equal((await checkTarget('not a url', false)).ok, false);
    const ok = await checkTarget('https://93.184.216.34/hook', false);
    assert.equal(ok.ok, true);
    assert.equal((await checkTarget('http://127.0.0.1:9/hook', true)).ok, true);
  });
});

describe('attempt classification (the delivery rules)', () => {
  it('succeeds on 2xx, gives up on 4xx other than 408 and 429, retries everything else', () => {
    for (const s of [200, 201, 204, 299]) assert.equal(classify({ status: s }), 'succeeded', String(s));
    for (const s of [400, 401, 403, 404, 410, 422])
      assert.equal(classify({ status: s }), 'give_up', String(s));
    for (const s of [408, 429, 500, 502, 503, 301, 302, 100])
      assert.equal(classify({ status: s }), 'retry', String(s));
    for (const e of ['timeout', 'connection', 'tls', 'blocked_target', 'dns'] as const)
      assert.equal(classify({ errorClass: e }), 'retry', e);
  });
});

describe('signing secrets at rest', () => {
  it('are whsec_ secrets, stored AES-256-GCM encrypted, and refuse a wrong key', () => {
    const secret = generateSigningSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    const key = Buffer.alloc(32, 3);
    const blob = encryptSecret(secret, key);
    assert.ok(!blob.toString('latin1').includes(secret.slice(6)));
    assert.equal(decryptSecret(blob, key), secret);
    assert.throws(() => decryptSecret(blob, Buffer.alloc(32, 4)));
  });
});
