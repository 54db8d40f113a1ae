import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { qualifyLead } from '../../domain/leads/operations/qualify';
import { suppressContact } from '../../domain/leads/operations/contact-suppress';
import { SCORING_VERSION } from '../../domain/leads/scoring';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { consent, count, eventsFor, intakeBody, postLead } from '../helpers/leads';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('POST /api/v1/leads: the ad-form intake', () => {
  let t: TestDatabase;
  let app: ReturnType<typeof testApp>;
  let key: string;
  let workspaceId: string;
  before(async () => {
    t = await freshDatabase();
    app = testApp(t.db);
    const w = await workspaceWithKey(t.db, { role: 'member', scopes: ['leads:read', 'leads:write'] });
    key = w.key.key;
    workspaceId = w.workspace.id;
  });
  after(() => t.drop());

  it('creates a lead (201), records the touch, qualifies and scores it, and emits exactly the promised events', async () => {
    const body = intakeBody({
      phone: '01 44 55 66 77',
      postcode: 'SW1A 1AA',
      answers: { timeline: 'now', budget: 5000 },
    });
    const res = await postLead(app, key, body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.outcome, 'CREATED');
    const lead = res.body.data;
    assert.equal(lead.email, body.email);
    assert.equal(
      lead.phone,
      '+33144556677',
      'a national number is read in the workspace country (Europe/Paris)',
    );
    assert.equal(lead.status, 'NEW');
    assert.equal(lead.follow_up, 'NOT_STARTED', 'follow-up is never started by intake');
    assert.equal(lead.score.grade, 'A');

    const events = await eventsFor(t.db, lead.id);
    assert.deepEqual(
      events.map((e) => e.type),
      ['lead.created', 'lead.qualified', 'lead.scored'],
    );
    for (const e of events) {
      assert.match(e.id, /^evt_[0-9a-f]{32}$/);
      assert.equal(e.data.subject_type, 'lead');
      assert.equal(e.data.subject_id, lead.id);
      assert.match(String(e.data.occurred_at), ISO_MS);
    }
    const qualified = events[1]!.data;
    assert.equal(qualified.result, 'QUALIFIED');
    assert.equal(qualified.status, 'NEW');
    assert.ok(
      Array.isArray(qualified.reasons) &&
        (qualified.reasons as { code: string }[]).every((r) => typeof r.code === 'string'),
    );
    const scored = events[2]!.data;
    for (const f of [
      'lead_id',
      'score_id',
      'total',
      'grade',
      'previous_grade',
      'confidence',
      'trigger_event',
      'scoring_version',
    ]) {
      assert.ok(f in scored, `lead.scored carries ${f}`);
    }
    assert.equal(scored.previous_grade, null);
    assert.equal(scored.trigger_event, 'lead.created');
    assert.equal(scored.scoring_version, SCORING_VERSION);
    assert.equal(await count(t.db, 'touches', `lead_id = $1 AND outcome = 'CREATED'`, [lead.id]), 1);
  });

  it('records the optional message as an inbound message (message.received)', async () => {
    const res = await postLead(app, key, intakeBody({ message: 'Do you have slots next week?' }));
    assert.equal(res.status, 201);
    assert.equal(res.body.data.needs_attention, true);
    const types = (await eventsFor(t.db, res.body.data.id)).map((e) => e.type);
    assert.deepEqual(types, [
      'lead.created',
      'message.received',
      'lead.intent_changed',
      'lead.qualified',
      'lead.scored',
    ]);
    assert.equal(
      await count(t.db, 'messages', `lead_id = $1 AND direction = 'inbound'`, [res.body.data.id]),
      1,
    );
  });

  it('merges new details into a lead matched by normalised email (200 MERGED, lead.touched)', async () => {
    const first = await postLead(app, key, intakeBody({ email: 'Merge.Me@Example.com', phone: null }));
    assert.equal(first.status, 201);
    const res = await postLead(
      app,
      key,
      intakeBody({
        email: '  merge.me@example.COM ',
        last_name: 'Other',
        postcode: 'E1 6AN',
        answers: { timeline: 'later' },
      }),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.outcome, 'MERGED');
    assert.equal(res.body.data.id, first.body.data.id);
    assert.equal(res.body.data.postcode, 'E1 6AN', 'a missing detail is added');
    assert.equal(res.body.data.last_name, 'Lima', 'an existing detail is kept');
    const events = await eventsFor(t.db, first.body.data.id);
    const touched = events.find((e) => e.type === 'lead.touched')!.data;
    for (const f of ['lead_id', 'touch_id', 'outcome', 'source_type', 'source', 'email', 'postcode'])
      assert.ok(f in touched, f);
    assert.equal(touched.outcome, 'MERGED');
    assert.equal(touched.source_type, 'ad_form');
    assert.equal(
      await count(t.db, 'leads', 'workspace_id = $1 AND email = $2', [workspaceId, 'merge.me@example.com']),
      1,
    );
  });

  it('merges a submission with a message: the details, the message, its intent and the new score, in the events a caller expects', async () => {
    // Qualified beforehand, so the message's buying intent opens an opportunity.
    const first = await postLead(
      app,
      key,
      intakeBody({ phone: null, postcode: 'SW1A 1AA', answers: { timeline: 'now', budget: 5000 } }),
    );
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const id = first.body.data.id as string;
    const [before] = await t.db.query<{ updated_at: Date; score_id: string }[]>(
      'SELECT updated_at, score_id FROM leads WHERE id = $1',
      [id],
    );
    const res = await postLead(
      app,
      key,
      intakeBody({
        email: first.body.data.email,
        phone: '+44 7700 900321',
        answers: { team_size: 12 },
        message: 'Can we book a demo tomorrow? We are ready to buy.',
      }),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.outcome, 'MERGED');
    assert.equal(res.body.data.id, id);
    assert.equal(res.body.data.phone, '+447700900321', 'a missing detail is added');
    assert.equal(res.body.data.needs_attention, true, 'the message asks for attention');

    const after = await t.db.query<{ type: string; data: Record<string, unknown> }[]>(
      `SELECT type, data FROM events WHERE data->>'lead_id' = $1 ORDER BY seq`,
      [id],
    );
    assert.deepEqual(
      after.map((e) => e.type),
      [
        'lead.created',
        'lead.qualified',
        'lead.scored',
        'lead.touched',
        'message.received',
        'lead.intent_changed',
        'opportunity.created',
        'lead.qualified',
        'lead.scored',
        'score.changed',
      ],
    );
    const byType = (type: string) => after.filter((e) => e.type === type).at(-1)!.data;
    assert.deepEqual(byType('lead.touched').changed_fields, ['phone', 'answers']);
    assert.equal(byType('lead.intent_changed').previous_intent, null);
    assert.equal(byType('lead.scored').trigger_event, 'lead.touched');
    assert.equal(byType('lead.scored').previous_grade, first.body.data.score.grade);

    const [lead] = await t.db.query<Record<string, unknown>[]>(
      `SELECT l.phone, l.answers, l.intent, l.needs_attention, l.score_id, l.score_total, l.score_grade,
              l.updated_at, s.total AS newest_total, s.trigger_event
         FROM leads l JOIN scores s ON s.id = l.score_id WHERE l.id = $1`,
      [id],
    );
    assert.equal(lead!.phone, '+447700900321');
    assert.deepEqual(lead!.answers, { timeline: 'now', budget: 5000, team_size: 12 });
    assert.equal(lead!.intent, byType('lead.intent_changed').intent);
    assert.equal(lead!.needs_attention, true);
    assert.notEqual(lead!.score_id, before!.score_id, 'the lead carries its new score');
    assert.equal(lead!.score_id, byType('lead.scored').score_id);
    assert.equal(lead!.score_total, lead!.newest_total);
    assert.equal(lead!.score_total, res.body.data.score.total);
    assert.equal(lead!.trigger_event, 'lead.touched');
    assert.ok((lead!.updated_at as Date) > before!.updated_at, 'updated_at moves');
    assert.equal(await count(t.db, 'scores', 'lead_id = $1', [id]), 2);
    assert.equal(await count(t.db, 'touches', 'lead_id = $1', [id]), 2);
    assert.equal(await count(t.db, 'messages', `lead_id = $1 AND direction = 'inbound'`, [id]), 1);
  });

  it('re-qualifying a lead by hand puts a new score on it and leaves updated_at where it was', async () => {
    const first = await postLead(app, key, intakeBody());
    const id = first.body.data.id as string;
    const read = async () =>
      (
        await t.db.query<{ updated_at: Date; score_id: string; score_total: number; score_grade: string }[]>(
          'SELECT updated_at, score_id, score_total, score_grade FROM leads WHERE id = $1',
          [id],
        )
      )[0]!;
    const before = await read();
    const view = await asOperator(t.db, qualifyLead, { leadId: id }, { workspaceId });
    const after = await read();
    assert.notEqual(after.score_id, before.score_id);
    const [score] = await t.db.query<{ total: number; grade: string; trigger_event: string }[]>(
      'SELECT total, grade, trigger_event FROM scores WHERE id = $1',
      [after.score_id],
    );
    assert.equal(score!.trigger_event, 'manual');
    assert.equal(after.score_total, score!.total);
    assert.equal(after.score_grade, score!.grade);
    assert.deepEqual(view.score, { total: score!.total, grade: score!.grade });
    assert.equal(after.updated_at.getTime(), before.updated_at.getTime(), 'a score alone is no change');
    assert.equal(await count(t.db, 'scores', 'lead_id = $1', [id]), 2);
  });

  it('matches on a phone given in national or international format', async () => {
    const first = await postLead(app, key, intakeBody({ email: null, phone: '+44 7700 900456' }));
    assert.equal(first.status, 201, JSON.stringify(first.body));
    // Workspace time zone Europe/Paris: a French national number normalises to +33.
    const fr = await postLead(app, key, intakeBody({ email: null, phone: '06 12 34 56 78' }));
    assert.equal(fr.body.data.phone, '+33612345678');
    const again = await postLead(
      app,
      key,
      intakeBody({ email: null, phone: '+33 6 12 34 56 78', first_name: 'Ana' }),
    );
    assert.equal(again.status, 200);
    assert.equal(again.body.data.id, fr.body.data.id);
  });

  it('answers 200 DUPLICATE when nothing is new, with lead.touched and no new score', async () => {
    const body = intakeBody();
    const first = await postLead(app, key, body);
    const scoresBefore = await count(t.db, 'scores', 'lead_id = $1', [first.body.data.id]);
    const dup = await postLead(app, key, body);
    assert.equal(dup.status, 200);
    assert.equal(dup.body.outcome, 'DUPLICATE');
    assert.equal(await count(t.db, 'scores', 'lead_id = $1', [first.body.data.id]), scoresBefore);
    const types = (await eventsFor(t.db, first.body.data.id)).map((e) => e.type);
    assert.equal(types.filter((x) => x === 'lead.touched').length, 1);
  });

  it('emits score.changed only when a new score moves the grade', async () => {
    const first = await postLead(app, key, intakeBody({ first_name: null, last_name: null }));
    assert.equal(first.body.data.score.grade, 'C');
    const better = await postLead(
      app,
      key,
      intakeBody({
        email: first.body.data.email,
        phone: '+44 7700 900999',
        answers: { timeline: 'now', budget: 9000 },
      }),
    );
    assert.equal(better.body.outcome, 'MERGED');
    const events = await eventsFor(t.db, first.body.data.id);
    const changed = events.filter((e) => e.type === 'score.changed');
    assert.equal(changed.length, 1);
    assert.equal(changed[0]!.data.previous_grade, 'C');
    assert.equal(changed[0]!.data.grade, better.body.data.score.grade);
    assert.equal(changed[0]!.data.trigger_event, 'lead.touched');
  });

  it('refuses a suppressed contact with 409 suppressed and stores nothing', async () => {
    await asOperator(
      t.db,
      suppressContact,
      {
        address: 'Blocked@Example.com',
        reason: 'complaint',
      },
      { workspaceId },
    );
    const tables = ['leads', 'touches', 'events', 'messages', 'idempotency_keys'];
    const before = await Promise.all(tables.map((x) => count(t.db, x)));
    const body = intakeBody({ email: 'blocked@example.com', message: 'hi' });
    const res = await postLead(app, key, body, 'idem-suppressed-1');
    assert.equal(res.status, 409);
    assert.deepEqual(res.body, {
      error: {
        code: 'suppressed',
        message: 'This contact is suppressed (opted out or blocked); nothing was stored.',
      },
    });
    const after = await Promise.all(tables.map((x) => count(t.db, x)));
    // Nothing of the submission is stored; the Idempotency-Key keeps the outcome, so a retry gets the same 409.
    assert.deepEqual(after, [...before.slice(0, 4), before[4]! + 1]);
    const [kept] = await t.db.query<{ response_body: unknown }[]>(
      `SELECT response_body FROM idempotency_keys WHERE idempotency_key = 'idem-suppressed-1'`,
    );
    assert.deepEqual(kept!.response_body, { data: null, outcome: 'SUPPRESSED' });
    const replay = await postLead(app, key, body, 'idem-suppressed-1');
    assert.equal(replay.status, 409);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.body, res.body);
  });

  it('touches a lead whose contact became suppressed (lead.touched SUPPRESSED) and changes nothing else', async () => {
    const first = await postLead(app, key, intakeBody({ postcode: null }));
    await asOperator(
      t.db,
      suppressContact,
      {
        address: first.body.data.email,
        reason: 'unsubscribed',
      },
      { workspaceId },
    );
    const res = await postLead(app, key, intakeBody({ email: first.body.data.email, postcode: 'N1 9GU' }));
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'suppressed');
    const events = await eventsFor(t.db, first.body.data.id);
    const last = events.at(-1)!;
    assert.equal(last.type, 'lead.touched');
    assert.equal(last.data.outcome, 'SUPPRESSED');
    for (const field of ['email', 'postcode', 'first_name', 'last_name', 'phone'])
      assert.equal(field in last.data, false, `the submitted ${field} is not in lead.touched`);
    const [touchRow] = await t.db.query<{ contact: unknown }[]>('SELECT contact FROM touches WHERE id = $1', [
      last.data.touch_id,
    ]);
    assert.deepEqual(touchRow!.contact, {}, 'nor in the touch row');
    const [lead] = await t.db.query<{ postcode: string | null }[]>(
      'SELECT postcode FROM leads WHERE id = $1',
      [first.body.data.id],
    );
    assert.equal(lead!.postcode, null);
  });

  it('replays the first response for 24 hours with Idempotent-Replayed: true', async () => {
    const body = intakeBody();
    const first = await postLead(app, key, body, 'idem-replay-1');
    const second = await postLead(
      app,
      key,
      { ...body, consent: { at: consent.at, given: true } },
      'idem-replay-1',
    );
    assert.equal(second.status, 201);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(first.headers['idempotent-replayed'], undefined);
    assert.equal(await count(t.db, 'leads', 'email = $1', [body.email]), 1);
  });

  it('refuses a reused key with another body, and a missing key, naming the header', async () => {
    await postLead(app, key, intakeBody(), 'idem-reuse');
    const res = await postLead(app, key, intakeBody(), 'idem-reuse');
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_request');
    assert.equal(res.body.error.field, 'Idempotency-Key');
    const missing = await postLead(app, key, intakeBody(), '');
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.field, 'Idempotency-Key');
  });

  it('creates exactly one lead from two concurrent requests with one key', async () => {
    const body = intakeBody({ message: 'first!' });
    const results = await Promise.all([1, 2, 3].map(() => postLead(app, key, body, 'idem-concurrent')));
    assert.equal(await count(t.db, 'leads', 'email = $1', [body.email]), 1);
    assert.equal(
      await count(
        t.db,
        'messages',
        `body = 'first!' AND lead_id IN (SELECT id FROM leads WHERE email = $1)`,
        [body.email],
      ),
      1,
    );
    const statuses = results.map((r) => r.status).sort();
    assert.ok(statuses.includes(201), String(statuses));
    for (const r of results) {
      if (r.status === 409) assert.equal(r.body.error.code, 'conflict');
      else assert.equal(r.status, 201);
    }
  });

  it('refuses bad bodies with invalid_request naming the field, storing nothing', async () => {
    const before = await count(t.db, 'leads');
    const cases: [Record<string, unknown>, string][] = [
      [intakeBody({ source: undefined }), 'source'],
      [intakeBody({ email: 'not-an-email' }), 'email'],
      [intakeBody({ email: null, phone: undefined }), 'email'],
      [intakeBody({ consent: undefined }), 'consent'],
      [intakeBody({ consent: { given: false, at: consent.at } }), 'consent.given'],
      [intakeBody({ consent: { given: true, at: 'yesterday' } }), 'consent.at'],
      [intakeBody({ first_name: 42 }), 'first_name'],
      [intakeBody({ favourite_colour: 'blue' }), ''],
      [intakeBody({ phone: 'call me' }), 'phone'],
      [intakeBody({ answers: { nested: { deep: true } } }), 'answers'],
    ];
    for (const [body, field] of cases) {
      const res = await postLead(app, key, body);
      assert.equal(res.status, 400, `${field}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'invalid_request');
      if (field) assert.equal(res.body.error.field, field, JSON.stringify(res.body));
      else assert.match(res.body.error.message, /favourite_colour/);
    }
    assert.equal(await count(t.db, 'leads'), before);
  });
});
