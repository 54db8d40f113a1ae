import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import request from 'supertest';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../../domain/kernel/event-catalogue';
import { EVENT_SCHEMAS_FILE } from '../../tooling/event-schemas';
import { repoRoot } from '../../tooling/paths';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { bearer, workspaceWithKey } from '../helpers/fixtures';

type Schema = Record<string, unknown>;
type EventTypeList = {
  data: { name: string; description: string; schema: Schema }[];
  count: number;
  envelope: Schema;
};

const UNAUTHORIZED = {
  error: {
    code: 'unauthorized',
    message: 'The API key is missing, invalid, expired, revoked or not allowed from this address.',
  },
};
const FORBIDDEN = { error: { code: 'forbidden', message: 'This API key is not allowed to do this.' } };

// Read from disk, not through the module the route uses, so the test compares against what is committed.
const published = JSON.parse(readFileSync(path.join(repoRoot(), EVENT_SCHEMAS_FILE), 'utf8')) as {
  envelope: Schema;
  types: Record<string, { description: string; schema: Schema }>;
};
const ALL_TYPES: string[] = [...EVENT_TYPES, TEST_EVENT_TYPE];

describe('GET /api/v1/event-types and the webhooks in the OpenAPI document', () => {
  let t: TestDatabase;
  let app: ReturnType<typeof testApp>;

  before(async () => {
    t = await freshDatabase();
    app = testApp(t.db);
  });
  after(() => t.drop());

  it('lists every type and endpoint.test with its description and published schema, and the envelope', async () => {
    const { key } = await workspaceWithKey(t.db);
    const res = await request(app).get('/api/v1/event-types').set(bearer(key.key)).expect(200);
    const body = res.body as EventTypeList;
    assert.deepEqual(
      body.data.map((d) => d.name),
      ALL_TYPES,
    );
    assert.equal(body.count, ALL_TYPES.length);
    const ajv = addFormats(new Ajv2020({ strict: true }));
    for (const d of body.data) {
      assert.deepEqual(Object.keys(d).sort(), ['description', 'name', 'schema'], d.name);
      assert.equal(d.description, published.types[d.name]!.description, d.name);
      assert.deepEqual(d.schema, published.types[d.name]!.schema, d.name);
      assert.equal(typeof ajv.compile(d.schema), 'function', d.name);
    }
    assert.deepEqual(body.envelope, published.envelope);

    // The compiled schemas judge real data: an endpoint.test delivery as a receiver would check it.
    const occurredAt = '2026-11-24T10:00:00.000Z';
    const data = {
      subject_type: 'endpoint',
      subject_id: 'e1',
      occurred_at: occurredAt,
      endpoint_id: 'e1',
    };
    const envelope = { id: `evt_${'a'.repeat(32)}`, type: TEST_EVENT_TYPE, created_at: occurredAt, data };
    const testSchema = body.data.find((d) => d.name === TEST_EVENT_TYPE)!.schema;
    assert.ok(ajv.validate(body.envelope, envelope), ajv.errorsText());
    assert.ok(ajv.validate(testSchema, data), ajv.errorsText());
    assert.equal(ajv.validate(testSchema, { ...data, endpoint_id: 1 }), false);
  });

  it('answers a viewer whose key has a narrow scope set, which other routes refuse', async () => {
    const { key: full } = await workspaceWithKey(t.db);
    const { key: narrow } = await workspaceWithKey(t.db, { role: 'viewer', scopes: ['campaigns:read'] });
    const expected = (await request(app).get('/api/v1/event-types').set(bearer(full.key)).expect(200)).body;
    const res = await request(app).get('/api/v1/event-types').set(bearer(narrow.key)).expect(200);
    assert.deepEqual(res.body, expected);
    const leads = await request(app).get('/api/v1/leads').set(bearer(narrow.key)).expect(403);
    assert.deepEqual(leads.body, FORBIDDEN);
  });

  it('refuses no key and a wrong key with 401 in the REST error shape', async () => {
    const cases: [string, Record<string, string>][] = [
      ['no key', {}],
      ['unknown key', bearer('lk_live_' + 'x'.repeat(40))],
      ['malformed key', bearer('not-a-key')],
    ];
    for (const [name, headers] of cases) {
      const res = await request(app).get('/api/v1/event-types').set(headers);
      assert.equal(res.status, 401, name);
      assert.deepEqual(res.body, UNAUTHORIZED, name);
      assert.equal(res.headers['www-authenticate'], 'Bearer', name);
    }
  });

  it('are in the OpenAPI document: one webhook per type, each data schema a component', async () => {
    const res = await request(app).get('/api/v1/openapi.json').expect(200);
    const doc = res.body as {
      webhooks: Record<string, { post: { summary: string; requestBody: unknown } }>;
      components: { schemas: Record<string, Schema> };
    };
    assert.deepEqual(Object.keys(doc.webhooks).sort(), [...ALL_TYPES].sort());
    // The components are the published schemas without the keys that make them documents of their own.
    const embedded = (s: Schema) => {
      const rest = { ...s };
      delete rest.$schema;
      delete rest.$id;
      return rest;
    };
    assert.deepEqual(doc.components.schemas.EventEnvelope, embedded(published.envelope));
    for (const type of ALL_TYPES) {
      assert.deepEqual(
        doc.components.schemas[`EventData.${type}`],
        embedded(published.types[type]!.schema),
        type,
      );
      const body = JSON.stringify(doc.webhooks[type]!.post.requestBody);
      assert.ok(body.includes(`"#/components/schemas/EventData.${type}"`), type);
      assert.ok(body.includes('"#/components/schemas/EventEnvelope"'), type);
    }
  });
});
