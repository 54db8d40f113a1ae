import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { createReceiver } from '../../receiver/example-receiver';
import { signWebhook, verifyWebhook, type WebhookEvent } from '../../receiver/verify';

const SECRET = `whsec_${randomBytes(32).toString('base64url')}`;
const T = 1_767_225_600; // 2026-01-01T00:00:00Z
const atT =
  (offsetSeconds = 0) =>
  () =>
    (T + offsetSeconds) * 1000;
const envelope = {
  id: 'evt_0123456789abcdef',
  type: 'lead.created',
  created_at: '2026-01-01T00:00:00.000Z',
  data: { lead_id: 'lead_1', email: 'zoë@example.com' },
};
// Deliberately not JSON.stringify's output (spacing, key order) to prove the raw bytes are what count.
const BODY = `{ "type": "lead.created", "id": "evt_0123456789abcdef", "created_at": "2026-01-01T00:00:00.000Z",
  "data": {"lead_id":"lead_1","email":"zoë@example.com"} }`;

const hmacHex = (key: string | Buffer, signed: string | Buffer) =>
  createHmac('sha256', key).update(signed).digest('hex');
const v1For = (body: string, secret = SECRET, t = T) => hmacHex(secret, `${t}.${body}`);

const verify = (
  signatureHeader: string | undefined,
  opts: { payload?: string | Buffer; now?: () => number } = {},
) =>
  verifyWebhook({ payload: opts.payload ?? BODY, signatureHeader, secret: SECRET, now: opts.now ?? atT() });

describe('signWebhook', () => {
  it('is the hex HMAC-SHA256 of "<t>.<raw body>" keyed with the whole secret string', () => {
    const expected = createHmac('sha256', SECRET).update(`${T}.${BODY}`, 'utf8').digest('hex');
    assert.match(expected, /^[0-9a-f]{64}$/);
    assert.equal(signWebhook(BODY, SECRET, T), `t=${T},v1=${expected}`);
    assert.equal(signWebhook(Buffer.from(BODY, 'utf8'), SECRET, T), `t=${T},v1=${expected}`);
  });

  it('refuses timestamps that would not render as an integer, and an empty secret', () => {
    for (const t of [1.5, -1, Number.NaN, 1e21])
      assert.throws(() => signWebhook(BODY, SECRET, t), RangeError);
    assert.throws(() => signWebhook(BODY, '', T), TypeError);
    assert.throws(() =>
      verifyWebhook({ payload: BODY, signatureHeader: `t=${T},v1=${'0'.repeat(64)}`, secret: '' }),
    );
  });
});

describe('verifyWebhook', () => {
  it('accepts a valid signature and returns the envelope', () => {
    const result = verify(signWebhook(BODY, SECRET, T));
    assert.deepEqual(result, { ok: true, event: envelope });
  });

  it('accepts a Buffer payload, including non-ASCII bytes', () => {
    const raw = Buffer.from(BODY, 'utf8');
    assert.notEqual(raw.length, BODY.length);
    assert.equal(verify(signWebhook(raw, SECRET, T), { payload: raw }).ok, true);
    // The same delivery verified from the string form agrees.
    assert.equal(verify(signWebhook(raw, SECRET, T)).ok, true);
  });

  it('rejects a tampered body, including a re-serialised one', () => {
    const header = signWebhook(BODY, SECRET, T);
    assert.deepEqual(verify(header, { payload: BODY.replace('lead_1', 'lead_2') }), {
      ok: false,
      reason: 'no_matching_signature',
    });
    assert.deepEqual(verify(header, { payload: JSON.stringify(JSON.parse(BODY)) }), {
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('rejects a signature made with another secret', () => {
    const other = `whsec_${randomBytes(32).toString('base64url')}`;
    assert.deepEqual(verify(signWebhook(BODY, other, T)), { ok: false, reason: 'no_matching_signature' });
  });

  it('rejects a timestamp swapped under a valid signature', () => {
    const v1 = v1For(BODY);
    assert.deepEqual(verify(`t=${T + 1},v1=${v1}`, { now: atT(1) }), {
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('keys the HMAC with the whsec_ string as is, not the base64-decoded remainder', () => {
    const decodedKey = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    assert.equal(decodedKey.length, 32);
    const standardWebhooksStyle = hmacHex(decodedKey, `${T}.${BODY}`);
    assert.deepEqual(verify(`t=${T},v1=${standardWebhooksStyle}`), {
      ok: false,
      reason: 'no_matching_signature',
    });
    const withoutPrefix = v1For(BODY, SECRET.slice('whsec_'.length));
    assert.deepEqual(verify(`t=${T},v1=${withoutPrefix}`), { ok: false, reason: 'no_matching_signature' });
    assert.equal(verify(`t=${T},v1=${v1For(BODY, SECRET)}`).ok, true);
  });

  it('accepts within 300 s either way and rejects beyond', () => {
    const header = signWebhook(BODY, SECRET, T);
    for (const offset of [-299, -300, 0, 299, 300])
      assert.equal(verify(header, { now: atT(offset) }).ok, true);
    for (const offset of [-301, 301, 86_400]) {
      assert.deepEqual(verify(header, { now: atT(offset) }), {
        ok: false,
        reason: 'timestamp_out_of_tolerance',
      });
    }
    // Sub-second clock readings do not shift the window.
    assert.equal(verify(header, { now: () => (T + 300) * 1000 + 999 }).ok, true);
  });

  it('honours a custom tolerance', () => {
    const header = signWebhook(BODY, SECRET, T);
    const check = (toleranceSeconds: number) =>
      verifyWebhook({
        payload: BODY,
        signatureHeader: header,
        secret: SECRET,
        toleranceSeconds,
        now: atT(60),
      });
    assert.equal(check(60).ok, true);
    assert.deepEqual(check(59), { ok: false, reason: 'timestamp_out_of_tolerance' });
  });

  it('accepts when any v1 matches, e.g. the second of two during rotation', () => {
    const stale = v1For(BODY, `whsec_${randomBytes(32).toString('base64url')}`);
    assert.equal(verify(`t=${T},v1=${stale},v1=${v1For(BODY)}`).ok, true);
    assert.equal(verify(`t=${T},v1=${v1For(BODY)},v1=${stale}`).ok, true);
    assert.deepEqual(verify(`t=${T},v1=${stale},v1=${stale}`), {
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('ignores unknown schemes such as v0, whatever they hold', () => {
    const v1 = v1For(BODY);
    assert.equal(verify(`t=${T},v0=not-hex-at-all,v1=${v1}`).ok, true);
    assert.equal(verify(`v0=${'a'.repeat(64)},t=${T},v1=${v1},v2=future`).ok, true);
    // A valid-looking signature under an unknown scheme is not a v1 signature.
    assert.deepEqual(verify(`t=${T},v0=${v1}`), { ok: false, reason: 'malformed_signature' });
  });

  it('parses whitespace around commas and equals signs, and upper-case hex', () => {
    const v1 = v1For(BODY);
    assert.equal(verify(` t=${T} ,  v1=${v1} `).ok, true);
    assert.equal(verify(`t = ${T},\tv1 = ${v1}`).ok, true);
    assert.equal(verify(`t=${T},v1=${v1.toUpperCase()}`).ok, true);
    assert.equal(verify(`t=${T},v1=${v1},`).ok, true);
  });

  it('signs the timestamp text as sent', () => {
    const padded = `0${T}`;
    assert.equal(verify(`t=${padded},v1=${hmacHex(SECRET, `${padded}.${BODY}`)}`).ok, true);
    assert.deepEqual(verify(`t=${padded},v1=${v1For(BODY)}`), { ok: false, reason: 'no_matching_signature' });
  });

  it('reports a missing header as missing_signature', () => {
    for (const header of [undefined, '', '   '])
      assert.deepEqual(verify(header), { ok: false, reason: 'missing_signature' }, String(header));
  });

  it('reports malformed headers as malformed_signature', () => {
    const v1 = v1For(BODY);
    const bad = [
      `v1=${v1}`, // no t
      `t=,v1=${v1}`,
      `t=abc,v1=${v1}`,
      `t=${T}.5,v1=${v1}`,
      `t=-${T},v1=${v1}`,
      `t=1e9,v1=${v1}`,
      `t=${T}`, // no v1
      `t=${T},v1=`,
      `t=${T},v1=${v1.slice(0, 63)}g`, // non-hex
      `t=${T},v1=${v1.slice(0, 62)}`, // too short
      `t=${T},v1=${v1}00`, // too long
      `t=${T},t=${T},v1=${v1}`, // duplicate t, even equal
      `t=${T},t=${T + 1},v1=${v1}`,
      `t=${T};v1=${v1}`,
      `t${T},v1=${v1}`,
      `=${T},v1=${v1}`,
      'garbage',
      ',',
    ];
    for (const header of bad)
      assert.deepEqual(verify(header), { ok: false, reason: 'malformed_signature' }, header);
  });

  it('reports a correctly signed body that is not an event envelope as invalid_json', () => {
    for (const body of ['not json', '[]', 'null', '{"id":"x","type":"t","created_at":"c"}', '{"id":1}']) {
      const result = verify(signWebhook(body, SECRET, T), { payload: body });
      assert.deepEqual(result, { ok: false, reason: 'invalid_json' }, body);
    }
  });
});

describe('example receiver', () => {
  async function withReceiver(run: (url: string, events: WebhookEvent[], logs: string[]) => Promise<void>) {
    const events: WebhookEvent[] = [];
    const logs: string[] = [];
    const server: Server = createServer(
      createReceiver({ secret: SECRET, onEvent: (e) => void events.push(e), log: (l) => void logs.push(l) }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, events, logs);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  const post = (url: string, body: string, signature?: string) =>
    fetch(url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        ...(signature === undefined ? {} : { 'service-signature': signature }),
        'service-event-id': envelope.id,
        'service-event-type': envelope.type,
        'service-delivery-attempt': '1',
      },
    });
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('accepts a signed delivery once and acknowledges the redelivery without handling it again', async () => {
    await withReceiver(async (url, events) => {
      const signature = signWebhook(BODY, SECRET, Math.floor(Date.now() / 1000));
      const first = await post(url, BODY, signature);
      assert.equal(first.status, 200);
      const again = await post(url, BODY, signature);
      assert.equal(again.status, 200);
      await settle();
      assert.deepEqual(events, [envelope]);
    });
  });

  it('answers 400 with a generic body and logs the reason', async () => {
    await withReceiver(async (url, events, logs) => {
      const stale = await post(url, BODY, signWebhook(BODY, SECRET, Math.floor(Date.now() / 1000) - 3600));
      assert.equal(stale.status, 400);
      const staleText = await stale.text();
      const unsigned = await post(url, BODY);
      assert.equal(unsigned.status, 400);
      assert.equal(await unsigned.text(), staleText);
      assert.doesNotMatch(staleText, /timestamp|signature/i);
      assert.ok(logs.some((l) => l.includes('timestamp_out_of_tolerance')));
      assert.ok(logs.some((l) => l.includes('missing_signature')));
      await settle();
      assert.deepEqual(events, []);
    });
  });
});
