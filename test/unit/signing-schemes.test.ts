import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from '../../receiver/verify';
import { attemptHeaders } from '../../domain/webhooks/delivery-headers';
import { RETRY_AFTER_MAX_MS, nextWaitMs, retryAfterMs } from '../../domain/webhooks/delivery-rules';
import { generateSigningSecret } from '../../domain/webhooks/secrets';
import { signStandard, signWebhook, standardKey } from '../../domain/webhooks/signing';

const NOW = Date.parse('2026-11-27T12:00:00Z');

describe('Standard Webhooks signing', () => {
  it("matches the specification's published example", () => {
    const key = standardKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')!;
    assert.equal(
      signStandard('msg_p5jXN8AQM9LWM0D4loKWxJek', '{"test": 2432232314}', [key], 1614265330),
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('reads a key only from padded standard base64 of 24 to 64 bytes', () => {
    assert.equal(standardKey(generateSigningSecret())!.length, 32);
    const bytes = Buffer.alloc(32, 0xfb);
    assert.equal(standardKey(`whsec_${bytes.toString('base64url')}`), undefined, 'the older base64url form');
    assert.equal(standardKey(`whsec_${Buffer.alloc(16).toString('base64')}`), undefined, 'too short');
    assert.equal(standardKey(bytes.toString('base64')), undefined, 'no prefix');
  });

  it('signs with every live secret, in both schemes, each verifiable on its own', () => {
    const [current, previous] = [generateSigningSecret(), generateSigningSecret()];
    const envelope = '{"id":"evt_1","type":"lead.created","created_at":"2026-11-27T12:00:00Z","data":{}}';
    const at = Math.floor(Date.now() / 1000);
    const h = attemptHeaders({
      scheme: 'both',
      secrets: [current, previous],
      eventId: 'evt_1',
      eventType: 'lead.created',
      attempt: 3,
      envelope,
      at,
    })!;
    assert.equal(h['webhook-id'], 'evt_1');
    assert.equal(h['webhook-timestamp'], String(at));
    assert.equal(h['webhook-signature']!.split(' ').length, 2);
    for (const secret of [current, previous]) {
      assert.doesNotThrow(() => new Webhook(secret).verify(envelope, h));
      assert.ok(verifyWebhook({ payload: envelope, signatureHeader: h['service-signature'], secret }).ok);
    }
    assert.throws(() => new Webhook(generateSigningSecret()).verify(envelope, h));
    assert.equal(signWebhook(envelope, [current, previous], at).match(/v1=/g)!.length, 2);
  });

  it('cannot sign standard with a secret from before the form; an older secret in overlap signs service only', () => {
    const legacy = `whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}`;
    const fresh = generateSigningSecret();
    const base = { eventId: 'e', eventType: 't', attempt: 1, envelope: '{}', at: 1 };
    assert.equal(attemptHeaders({ ...base, scheme: 'standard', secrets: [legacy] }), undefined);
    assert.ok(attemptHeaders({ ...base, scheme: 'service', secrets: [legacy] })!['service-signature']);
    const h = attemptHeaders({ ...base, scheme: 'both', secrets: [fresh, legacy] })!;
    assert.equal(h['webhook-signature']!.split(' ').length, 1);
    assert.equal(h['service-signature']!.match(/v1=/g)!.length, 2);
    const service = attemptHeaders({ ...base, scheme: 'service', secrets: [fresh] })!;
    assert.equal(service['webhook-signature'], undefined);
    assert.equal(service['webhook-id'], undefined);
  });
});

describe("the receiver's Retry-After", () => {
  const asked = (status: number, value?: string) =>
    retryAfterMs({ status, ...(value === undefined ? {} : { retryAfter: value }) }, NOW);

  it('is read in seconds or as an HTTP date, on 429 and 503 only', () => {
    assert.equal(asked(429, '120'), 120_000);
    assert.equal(asked(503, ' 0 '), 0);
    assert.equal(asked(503, new Date(NOW + 600_000).toUTCString()), 600_000);
    assert.equal(asked(503, new Date(NOW - 600_000).toUTCString()), 0, 'a date past asks for no wait');
    for (const status of [500, 502, 408, 200, 410]) assert.equal(asked(status, '120'), undefined);
  });

  it('ignores what it cannot read', () => {
    for (const value of ['', 'soon', '-5', '1.5', '2026-11-27T12:10:00', '0x10', '12 s'])
      assert.equal(asked(503, value), undefined, JSON.stringify(value));
    assert.equal(asked(503), undefined);
    assert.equal(retryAfterMs({ errorClass: 'timeout' }, NOW), undefined);
  });

  it('is capped at one hour', () => {
    assert.equal(asked(429, '86400'), RETRY_AFTER_MAX_MS);
    assert.equal(asked(429, '99999999999999'), RETRY_AFTER_MAX_MS);
    assert.equal(asked(503, new Date(NOW + 86_400_000).toUTCString()), RETRY_AFTER_MAX_MS);
  });

  it('only ever lengthens the ladder, and never adds an attempt', () => {
    assert.equal(nextWaitMs(30_000, 120_000), 120_000);
    assert.equal(nextWaitMs(300_000, 120_000), 300_000);
    assert.equal(nextWaitMs(30_000, undefined), 30_000);
    assert.equal(nextWaitMs(null, 120_000), null);
  });
});
