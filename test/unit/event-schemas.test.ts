import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../../domain/kernel/event-catalogue';
import { checkEventData } from '../../domain/kernel/event-validation';
import { EVENT_SCHEMAS_FILE, buildEventSchemas } from '../../tooling/event-schemas';
import { repoRoot } from '../../tooling/paths';

describe('the published event schemas', () => {
  it('are what the catalogue types generate (run `npm run schemas` after changing event-catalogue.ts)', () => {
    const committed: unknown = JSON.parse(readFileSync(path.join(repoRoot(), EVENT_SCHEMAS_FILE), 'utf8'));
    assert.deepEqual(committed, buildEventSchemas(), 'stale: run `npm run schemas`');
  });

  it('cover every catalogue type and endpoint.test, each with a description', () => {
    const { types } = buildEventSchemas();
    assert.deepEqual(Object.keys(types), [...EVENT_TYPES, TEST_EVENT_TYPE]);
    for (const [type, t] of Object.entries(types)) assert.ok(t.description.length > 10, type);
  });

  it('refuse data emitEvent would otherwise send: a missing field, an extra one, a wrong type', () => {
    const base = {
      subject_type: 'quote',
      subject_id: 'q1',
      occurred_at: '2026-11-24T10:00:00.000Z',
      quote_id: 'q1',
      number: 'Q-000001',
      revision: 1,
      lead_id: 'l1',
    };
    checkEventData('quote.viewed', base);
    const missing: Record<string, unknown> = { ...base };
    delete missing.number;
    assert.throws(() => checkEventData('quote.viewed', missing), /quote\.viewed data does not match/);
    assert.throws(() => checkEventData('quote.viewed', { ...base, email: 'x@y.z' }), /additional properties/);
    assert.throws(
      () => checkEventData('quote.viewed', { ...base, revision: '1' }),
      /\/revision must be number/,
    );
    assert.throws(() => checkEventData('quote.viewed', { ...base, subject_type: 'nope' }), /subject_type/);
  });
});
