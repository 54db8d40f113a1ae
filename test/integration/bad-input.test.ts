import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { openApiDocument } from '../../api/openapi/document';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { bearer, workspaceWithKey } from '../helpers/fixtures';
import { count, intakeBody, postLead } from '../helpers/leads';

/**
 * Regression tests for the kinds of bad input the fuzzer generates: each gets a 400 invalid_request
 * that names the field (or 413 for size), and nothing changes.
 */
describe('bad input is refused cleanly and changes nothing', () => {
  let t: TestDatabase;
  let app: ReturnType<typeof testApp>;
  let key: string;
  let leadId: string;
  let snapshot: () => Promise<string>;
  before(async () => {
    t = await freshDatabase();
    app = testApp(t.db);
    key = (
      await workspaceWithKey(t.db, { role: 'admin', scopes: ['leads:read', 'leads:write', 'business:read'] })
    ).key.key;
    leadId = (await postLead(app, key, intakeBody())).body.data.id;
    snapshot = async () =>
      JSON.stringify([
        await count(t.db, 'leads'),
        await count(t.db, 'events'),
        await count(t.db, 'lead_notes'),
        await t.db.query('SELECT * FROM leads ORDER BY id'),
      ]);
  });
  after(() => t.drop());

  const expectRefusal = async (res: request.Response, field: string | RegExp, status = 400) => {
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'invalid_request');
    if (typeof field === 'string') assert.equal(res.body.error.field, field, JSON.stringify(res.body));
    else assert.match(res.body.error.message, field);
  };
  /** Sends the bytes as they are (superagent would JSON-encode a Buffer). */
  const raw = (method: 'post' | 'patch', path: string, body: string | Buffer, type = 'application/json') => {
    const req = method === 'post' ? request(app).post(path) : request(app).patch(path);
    return req
      .set(bearer(key))
      .set('Idempotency-Key', `raw-${Math.random()}`)
      .set('Content-Type', type)
      .serialize((b: unknown) => b as string)
      .send(body as string);
  };

  it('malformed UUIDs in the path', async () => {
    const before = await snapshot();
    for (const id of [
      'x',
      '1234',
      `${leadId}x`,
      '00000000-0000-0000-0000-00000000000g',
      '%00',
      "' OR 1=1 --",
    ]) {
      await expectRefusal(
        await request(app)
          .get(`/api/v1/leads/${encodeURIComponent(id)}`)
          .set(bearer(key)),
        'id',
      );
      await expectRefusal(
        await request(app)
          .patch(`/api/v1/leads/${encodeURIComponent(id)}`)
          .set(bearer(key))
          .send({ note: 'n' }),
        'id',
      );
    }
    assert.equal(await snapshot(), before);
  });

  it('giant and deeply nested JSON bodies', async () => {
    const before = await snapshot();
    await expectRefusal(
      await raw('post', '/api/v1/leads', JSON.stringify({ source: 'x'.repeat(2 * 1024 * 1024) })),
      'body',
      413,
    );
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const deepRes = await raw('post', '/api/v1/leads', deep);
    assert.equal(deepRes.status, 400);
    assert.equal(deepRes.body.error.code, 'invalid_request');
    const nested = await postLead(
      app,
      key,
      intakeBody({ answers: JSON.parse('{"a":'.repeat(50) + '1' + '}'.repeat(50)) }),
    );
    await expectRefusal(nested, 'answers');
    assert.equal(await snapshot(), before);
  });

  it('wrong content types and invalid UTF-8', async () => {
    const before = await snapshot();
    const body = JSON.stringify(intakeBody());
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/xml',
      'application/json; charset=latin1',
    ]) {
      await expectRefusal(await raw('post', '/api/v1/leads', body, type), 'content-type');
    }
    await expectRefusal(
      await raw('post', '/api/v1/leads', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
      'body',
    );
    await expectRefusal(
      await raw('patch', `/api/v1/leads/${leadId}`, Buffer.from('{"note":"\xc3\x28"}', 'latin1')),
      'body',
    );
    assert.equal(await snapshot(), before);
  });

  it('numbers out of range and repeated query parameters', async () => {
    for (const qs of [
      'limit=0',
      'limit=51',
      'limit=-1',
      'limit=1e3',
      'limit=99999999999999999999',
      'limit=%20',
      'limit=',
    ]) {
      await expectRefusal(await request(app).get(`/api/v1/leads?${qs}`).set(bearer(key)), 'limit');
    }
    for (const qs of ['limit=0', 'limit=101'])
      await expectRefusal(await request(app).get(`/api/v1/events?${qs}`).set(bearer(key)), 'limit');
    await expectRefusal(
      await request(app).get('/api/v1/leads?status=NEW&status=WON').set(bearer(key)),
      'status',
    );
    await expectRefusal(await request(app).get('/api/v1/events?type=a.b&type=c.d').set(bearer(key)), 'type');
  });

  it('refuses every input one past the bound the document gives, naming it, and changes nothing', async () => {
    type Schema = {
      type?: unknown;
      anyOf?: Schema[];
      maxLength?: number;
      maxProperties?: number;
      properties?: Record<string, Schema>;
    };
    type Param = { name: string; in: string; schema: Schema };
    const doc = openApiDocument() as {
      components: { schemas: Record<string, Schema> };
      paths: Record<string, Record<string, { parameters?: Param[] }>>;
    };
    const intake = doc.components.schemas.CreateLeadBody!.properties!;
    const patch = doc.components.schemas.UpdateLeadBody!.properties!;
    const param = (path: string, method: string, name: string) =>
      doc.paths[path]![method]!.parameters!.find((p) => p.name === name)!.schema;
    /** `n` characters that pass every other rule of the field, so only its length is wrong. */
    const valueOf: Record<string, (n: number) => string> = {
      email: (n) => `${'a'.repeat(n - '@example.com'.length)}@example.com`,
      phone: (n) => `+44${' '.repeat(n - 13)}7700900123`,
    };
    // A nullable field's bound is on its typed branch (null is a branch of its own).
    const bound = (s: Schema) => (s.anyOf?.find((b) => b.type !== 'null') ?? s).maxLength!;
    const over = (field: string, s: Schema) => (valueOf[field] ?? ((n) => 'x'.repeat(n)))(bound(s) + 1);
    const tooLong = async (res: request.Response, field: string) => {
      await expectRefusal(res, field);
      assert.match(res.body.error.message, /at most/, `${field}: ${res.body.error.message}`);
    };
    const before = await snapshot();

    for (const field of ['first_name', 'last_name', 'email', 'phone', 'postcode', 'source', 'message'])
      await tooLong(await postLead(app, key, intakeBody({ [field]: over(field, intake[field]!) })), field);
    const at = intake.consent!.properties!.at!.maxLength!;
    const precise = `2026-11-20T09:30:00.${'1'.repeat(at - 20)}Z`;
    await tooLong(
      await postLead(app, key, intakeBody({ consent: { given: true, at: precise } })),
      'consent.at',
    );
    const answers = Object.fromEntries(
      Array.from({ length: intake.answers!.maxProperties! + 1 }, (_, i) => [`q${i}`, 'yes']),
    );
    await expectRefusal(await postLead(app, key, intakeBody({ answers })), 'answers');

    for (const field of ['first_name', 'last_name', 'email', 'phone', 'postcode', 'note'])
      await tooLong(
        await request(app)
          .patch(`/api/v1/leads/${leadId}`)
          .set(bearer(key))
          .send({ [field]: over(field, patch[field]!) }),
        field,
      );

    const query = over('query', param('/api/v1/leads', 'get', 'query'));
    await tooLong(await request(app).get('/api/v1/leads').query({ query }).set(bearer(key)), 'query');
    const type = `lead.${'a'.repeat(param('/api/v1/events', 'get', 'type').maxLength! - 4)}`;
    await tooLong(await request(app).get('/api/v1/events').query({ type }).set(bearer(key)), 'type');
    const idempotency = param('/api/v1/leads', 'post', 'Idempotency-Key').maxLength!;
    await expectRefusal(
      await postLead(app, key, intakeBody(), 'k'.repeat(idempotency + 1)),
      'Idempotency-Key',
    );
    assert.equal(await snapshot(), before);
  });

  it('counts lengths in characters, as the document does: 20 emoji are a valid postcode, 21 are not', async () => {
    const ok = await request(app)
      .patch(`/api/v1/leads/${leadId}`)
      .set(bearer(key))
      .send({ postcode: '🏠'.repeat(20) });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    await expectRefusal(
      await request(app)
        .patch(`/api/v1/leads/${leadId}`)
        .set(bearer(key))
        .send({ postcode: '🏠'.repeat(21) }),
      'postcode',
    );
    const note = await request(app)
      .patch(`/api/v1/leads/${leadId}`)
      .set(bearer(key))
      .send({ note: '🙂'.repeat(2000) });
    assert.equal(note.status, 200, JSON.stringify(note.body));
  });

  it('unknown fields and nulls where strings are expected', async () => {
    const before = await snapshot();
    const unknown = await postLead(app, key, intakeBody({ admin: true }));
    await expectRefusal(unknown, 'admin');
    assert.match(unknown.body.error.message, /admin is not a lead intake field/);
    await expectRefusal(
      await request(app).patch(`/api/v1/leads/${leadId}`).set(bearer(key)).send({ owner: 'x' }),
      'owner',
    );
    await expectRefusal(
      await postLead(app, key, intakeBody({ consent: { given: true, at: '2026-11-20T09:30:00Z', by: 'x' } })),
      'consent.by',
    );
    await expectRefusal(await postLead(app, key, intakeBody({ source: null })), 'source');
    await expectRefusal(
      await request(app).patch(`/api/v1/leads/${leadId}`).set(bearer(key)).send({ status: null }),
      'status',
    );
    await expectRefusal(
      await request(app).patch(`/api/v1/leads/${leadId}`).set(bearer(key)).send({ note: null }),
      'note',
    );
    await expectRefusal(await postLead(app, key, intakeBody({ consent: null })), 'consent');
    await expectRefusal(await raw('post', '/api/v1/leads', 'null'), /JSON object/);
    await expectRefusal(
      await request(app).patch(`/api/v1/leads/${leadId}`).set(bearer(key)).send([]),
      /JSON object/,
    );
    assert.equal(await snapshot(), before);
  });
});
