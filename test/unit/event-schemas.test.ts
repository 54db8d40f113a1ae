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

  it('describe every field of every type, nested ones included', () => {
    const undescribed: string[] = [];
    const walk = (s: Record<string, unknown>, at: string) => {
      for (const [name, p] of Object.entries(
        (s.properties ?? {}) as Record<string, Record<string, unknown>>,
      )) {
        if (!p.description) undescribed.push(`${at}/${name}`);
        walk(p, `${at}/${name}`);
      }
      for (const branch of (s.anyOf ?? []) as Record<string, unknown>[]) walk(branch, at);
      if (s.items) walk(s.items as Record<string, unknown>, `${at}/*`);
    };
    for (const [type, t] of Object.entries(buildEventSchemas().types)) walk(t.schema, type);
    assert.deepEqual(undescribed, []);
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
    assert.throws(
      () => checkEventData('quote.viewed', missing),
      /^Error: quote\.viewed data does not match its schema: \/number is required$/,
    );
    assert.throws(
      () => checkEventData('quote.viewed', { ...base, email: 'x@y.z' }),
      /: \/email is not allowed \(must NOT have additional properties\)$/,
    );
    assert.throws(
      () => checkEventData('quote.viewed', { ...base, revision: '1' }),
      /: \/revision must be number$/,
    );
    assert.throws(
      () => checkEventData('quote.viewed', { ...base, subject_type: 'nope' }),
      /: \/subject_type must be equal to one of the allowed values$/,
    );
  });

  it('name the field inside a nested object too', () => {
    const won = {
      subject_type: 'opportunity',
      subject_id: 'o1',
      occurred_at: '2026-11-24T10:00:00.000Z',
      opportunity_id: 'o1',
      lead_id: 'l1',
      reason: 'Invoice INV-000001 was paid.',
      payment: {
        invoice_id: 'i1',
        amount: 1000,
        currency: 'EUR',
        recurring: false,
        interval: null,
        mrr: null,
      },
    };
    checkEventData('opportunity.won', won);
    const noMrr: Record<string, unknown> = { ...won.payment };
    delete noMrr.mrr;
    assert.throws(
      () => checkEventData('opportunity.won', { ...won, payment: noMrr }),
      /: \/payment\/mrr is required$/,
    );
    assert.throws(
      () => checkEventData('opportunity.won', { ...won, payment: { ...won.payment, note: 'x' } }),
      /: \/payment\/note is not allowed/,
    );
  });
});
