import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import request from 'supertest';
import type * as yup from 'yup';
import { openApiDocument } from '../../api/openapi/document';
import { intakeSchema, leadPatchSchema, searchParamsSchema } from '../../domain/leads/schemas';
import { deliveryParamsSchema } from '../../domain/webhooks/schemas';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { violationOf } from '../helpers/openapi-check';

type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<string, { parameters?: { name: string; in: string; schema: Record<string, unknown> }[] }>
  >;
  components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
};
const doc = openApiDocument() as Doc;
const fieldsOf = (s: yup.AnyObjectSchema) => Object.keys(s.fields).sort();
const queryParams = (path: string) =>
  (doc.paths[path]!.get!.parameters ?? [])
    .filter((p) => p.in === 'query')
    .map((p) => p.name)
    .sort();

type Described = { oneOf?: unknown[]; tests?: { name?: string; params?: Record<string, unknown> }[] };
const described = (s: yup.AnyObjectSchema, field: string) =>
  (s.describe() as { fields: Record<string, Described> }).fields[field]!;
const testParam = (d: Described, name: string, param: string) =>
  d.tests?.find((t) => t.name === name)?.params?.[param];
/** A nullable field's limits are on its typed branch: null is a branch of its own, not a type union. */
const valueOf = (field: Record<string, unknown>) =>
  (field.anyOf as Record<string, unknown>[] | undefined)?.find((b) => b.type !== 'null') ?? field;

describe('the OpenAPI document', () => {
  let t: TestDatabase;
  before(async () => {
    t = await freshDatabase();
  });
  after(() => t.drop());

  it('is served without auth at /api/v1/openapi.json, as OpenAPI 3.1 whose schemas compile', async () => {
    const res = await request(testApp(t.db)).get('/api/v1/openapi.json').expect(200);
    assert.match(res.headers['content-type'] as string, /^application\/json/);
    assert.deepEqual(res.body, JSON.parse(JSON.stringify(openApiDocument())));
    assert.equal(res.body.openapi, '3.1.0');
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema({ ...res.body, $id: 'doc' });
    for (const name of Object.keys(res.body.components.schemas))
      assert.ok(ajv.getSchema(`doc#/components/schemas/${name}`), name);
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const o = op as { security?: unknown; responses?: Record<string, unknown> };
        assert.ok(o.security, `${method} ${path} names its security`);
        for (const status of ['401', '403', '429', '500'])
          assert.ok(o.responses?.[status], `${method} ${path} documents ${status}`);
      }
    }
  });

  it('agrees with the validation schemas the routes use (fields, enums, limits)', () => {
    const props = (name: string) => Object.keys(doc.components.schemas[name]!.properties).sort();
    assert.deepEqual(props('CreateLeadBody'), fieldsOf(intakeSchema));
    assert.deepEqual(props('UpdateLeadBody'), fieldsOf(leadPatchSchema));
    assert.deepEqual(queryParams('/api/v1/leads'), fieldsOf(searchParamsSchema));
    // The key travels in its header, never in the body.
    assert.deepEqual(props('CreateLeadBody'), fieldsOf(intakeSchema));
    assert.deepEqual(queryParams('/api/v1/events'), fieldsOf(deliveryParamsSchema));

    const patch = doc.components.schemas.UpdateLeadBody!.properties;
    assert.deepEqual(patch.status!.enum, described(leadPatchSchema, 'status').oneOf);
    assert.equal(patch.note!.maxLength, testParam(described(leadPatchSchema, 'note'), 'max', 'max'));
    for (const f of ['first_name', 'last_name', 'email', 'phone', 'postcode']) {
      assert.equal(valueOf(patch[f]!).maxLength, testParam(described(leadPatchSchema, f), 'max', 'max'), f);
    }
    const phoneTest = described(leadPatchSchema, 'phone').tests?.find((t) => t.name === 'matches');
    assert.equal(
      valueOf(patch.phone!).pattern,
      `^$|${(phoneTest?.params?.regex as RegExp).source}`,
      'the phone pattern (empty clears)',
    );
    const intake = doc.components.schemas.CreateLeadBody!.properties;
    assert.equal(intake.source!.maxLength, testParam(described(intakeSchema, 'source'), 'max', 'max'));
    assert.equal(intake.message!.maxLength, testParam(described(intakeSchema, 'message'), 'max', 'max'));
    const search = doc.paths['/api/v1/leads']!.get!.parameters!;
    assert.deepEqual(
      search.find((p) => p.name === 'status')!.schema.enum,
      described(searchParamsSchema, 'status').oneOf,
    );
    assert.equal(search.find((p) => p.name === 'needs_attention')!.schema.type, 'boolean');
    assert.equal(search.find((p) => p.name === 'limit')!.schema.type, 'integer');
    assert.equal(
      search.find((p) => p.name === 'query')!.schema.maxLength,
      testParam(described(searchParamsSchema, 'query'), 'max', 'max'),
    );
    const events = doc.paths['/api/v1/events']!.get!.parameters!;
    assert.deepEqual(
      events.find((p) => p.name === 'status')!.schema.enum,
      described(deliveryParamsSchema, 'status').oneOf,
    );
  });

  it('catches an undocumented status, a missing header and an undocumented field', () => {
    const headers = { 'request-id': 'req_x', 'ratelimit-policy': 'p', ratelimit: 'r' };
    const me = {
      workspace: {
        id: '00000000-0000-4000-8000-000000000000',
        name: 'n',
        timezone: 'UTC',
        industry: '',
        status: 'active',
      },
      key: { name: 'k', environment: 'live', scopes: ['business:read'] },
      acting_as: { role: 'admin' },
    };
    assert.equal(violationOf('GET', '/api/v1/me', 200, headers, me), undefined);
    assert.match(violationOf('GET', '/api/v1/me', 202, headers, me)!, /does not list/);
    assert.match(
      violationOf('GET', '/api/v1/me', 200, { 'request-id': 'req_x' }, me)!,
      /header RateLimit-Policy missing/,
    );
    assert.match(
      violationOf('GET', '/api/v1/me', 200, headers, { ...me, secret: 'x' })!,
      /body breaks the document/,
    );
  });
});
