import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { ALLOWED_MOVES, LEAD_STATUSES, type LeadStatus } from '../../domain/leads/status-rules';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { bearer, workspaceWithKey } from '../helpers/fixtures';
import { count, eventsFor, intakeBody, postLead } from '../helpers/leads';

describe('PATCH /api/v1/leads/{id}', () => {
  let t: TestDatabase;
  let app: ReturnType<typeof testApp>;
  let key: string;
  before(async () => {
    t = await freshDatabase();
    app = testApp(t.db);
    key = (await workspaceWithKey(t.db, { role: 'member', scopes: ['leads:read', 'leads:write'] })).key.key;
  });
  after(() => t.drop());

  const patch = (id: string, body: unknown) =>
    request(app)
      .patch(`/api/v1/leads/${id}`)
      .set(bearer(key))
      .send(body as object);
  const newLead = async () =>
    (await postLead(app, key, intakeBody())).body.data as { id: string; email: string };
  /** A lead put into `status` directly in the database, so every row of the table can start anywhere. */
  const leadIn = async (status: LeadStatus) => {
    const lead = await newLead();
    await t.db.query('UPDATE leads SET status = $2 WHERE id = $1', [lead.id, status]);
    return lead;
  };

  describe('every row of the status table', () => {
    for (const from of LEAD_STATUSES) {
      for (const to of LEAD_STATUSES) {
        const allowed = ALLOWED_MOVES[from].includes(to);
        const label = from === to ? 'unchanged' : allowed ? 'allowed' : 'refused';
        it(`${from} → ${to}: ${label}`, async () => {
          const lead = await leadIn(from);
          const before = (await eventsFor(t.db, lead.id)).length;
          const res = await patch(lead.id, { status: to });
          const events = await eventsFor(t.db, lead.id);
          if (from === to) {
            assert.equal(res.status, 200);
            assert.deepEqual(res.body.applied, ['lead.set_status']);
            assert.deepEqual(res.body.warnings, [
              { code: 'status_unchanged', message: `The lead is already ${to}; nothing changed.` },
            ]);
            assert.equal(events.length, before, 'no event for an unchanged status');
          } else if (allowed) {
            assert.equal(res.status, 200, JSON.stringify(res.body));
            assert.equal(res.body.data.status, to);
            assert.deepEqual(res.body.applied, ['lead.set_status']);
            const closing = to === 'WON' || to === 'LOST';
            assert.deepEqual(
              res.body.warnings.map((w: { code: string }) => w.code),
              closing ? ['follow_up_stopped'] : [],
            );
            if (closing) assert.equal(res.body.data.follow_up, 'STOPPED');
            const changed = events.at(-1)!;
            assert.equal(changed.type, 'lead.status_changed');
            assert.equal(changed.data.status, to);
            assert.equal(changed.data.previous_status, from);
            assert.equal(events.length, before + 1);
          } else {
            assert.equal(res.status, 409);
            assert.deepEqual(res.body, {
              error: {
                code: 'conflict',
                message: `A lead cannot move from ${from} to ${to}.`,
                from,
                to,
                failed_step: 'lead.set_status',
                applied: [],
              },
            });
            assert.equal(events.length, before);
            const [row] = await t.db.query<{ status: string }[]>('SELECT status FROM leads WHERE id = $1', [
              lead.id,
            ]);
            assert.equal(row!.status, from);
          }
        });
      }
    }
  });

  it('applies details, then status, then note, and reports each step', async () => {
    const lead = await newLead();
    const res = await patch(lead.id, {
      note: 'Called, keen.',
      status: 'CONTACTED',
      postcode: 'N1 9GU',
      first_name: null,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.applied, ['lead.update', 'lead.set_status', 'lead.add_note']);
    assert.equal(res.body.data.postcode, 'N1 9GU');
    assert.equal(res.body.data.first_name, null, 'null clears a detail');
    assert.equal(res.body.data.status, 'CONTACTED');
    assert.equal(await count(t.db, 'lead_notes', 'lead_id = $1', [lead.id]), 1);
  });

  it('keeps earlier steps when a later step is refused, and says which in the exact error body', async () => {
    const lead = await leadIn('WON');
    const res = await patch(lead.id, { last_name: 'Souza', status: 'NEW', note: 'never written' });
    assert.equal(res.status, 409);
    assert.deepEqual(res.body, {
      error: {
        code: 'conflict',
        message: 'A lead cannot move from WON to NEW.',
        from: 'WON',
        to: 'NEW',
        failed_step: 'lead.set_status',
        applied: ['lead.update'],
      },
    });
    const [row] = await t.db.query<{ last_name: string; status: string }[]>(
      'SELECT last_name, status FROM leads WHERE id = $1',
      [lead.id],
    );
    assert.deepEqual(row, { last_name: 'Souza', status: 'WON' });
    assert.equal(await count(t.db, 'lead_notes', 'lead_id = $1', [lead.id]), 0, 'the note step never ran');
  });

  it('refuses unknown fields, wrong types, unknown statuses and oversized notes whole, leaving the lead untouched', async () => {
    const lead = await newLead();
    const snapshot = async () =>
      JSON.stringify(await t.db.query('SELECT * FROM leads WHERE id = $1', [lead.id])) +
      (await count(t.db, 'lead_notes', 'lead_id = $1', [lead.id])) +
      (await eventsFor(t.db, lead.id)).length;
    const before = await snapshot();
    const cases: [unknown, string | undefined, RegExp][] = [
      [{ postcode: 'E1', score: 99 }, undefined, /score is not a lead field/],
      [{ first_name: 'X', status: 'DONE' }, 'status', /status must be one of/],
      [{ first_name: 'X', note: 'x'.repeat(2001) }, 'note', /at most 2000/],
      [{ first_name: 7 }, 'first_name', /first_name must be a string or null/],
      [{ email: 'nope' }, 'email', /email address/],
      [{}, undefined, /at least one field/],
      [['status', 'WON'], undefined, /JSON object/],
    ];
    for (const [body, field, message] of cases) {
      const res = await patch(lead.id, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'invalid_request');
      assert.match(res.body.error.message, message);
      if (field) assert.equal(res.body.error.field, field);
    }
    assert.equal(await snapshot(), before);
  });

  it('accepts a note of exactly 2,000 characters', async () => {
    const lead = await newLead();
    const res = await patch(lead.id, { note: 'n'.repeat(2000) });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.applied, ['lead.add_note']);
  });

  it('refuses an email that another lead has, as a conflict of the details step', async () => {
    const a = await newLead();
    const b = await newLead();
    const res = await patch(b.id, { email: a.email, status: 'CONTACTED' });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.failed_step, 'lead.update');
    assert.deepEqual(res.body.error.applied, []);
  });

  it('answers 400 for a non-UUID id and 404 for a missing one', async () => {
    const bad = await patch('not-a-uuid', { status: 'CONTACTED' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'id');
    const missing = await patch('00000000-0000-4000-8000-000000000000', { status: 'CONTACTED' });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
  });
});
