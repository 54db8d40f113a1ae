import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { recordInboundMessage } from '../../domain/conversations/operations/message-inbound';
import { createApiKey } from '../../domain/identity/operations/key-create';
import { addMember } from '../../domain/identity/operations/member-add';
import { archiveLead } from '../../domain/leads/operations/archive';
import {
  measureCommonTrigrams,
  rareStretches,
  setCommonTrigrams,
} from '../../domain/leads/repository/common-trigrams';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, bearer, workspaceWithKey } from '../helpers/fixtures';
import { eventsFor, intakeBody, postLead } from '../helpers/leads';

describe('reading and searching leads', () => {
  let t: TestDatabase;
  let app: ReturnType<typeof testApp>;
  let a: Awaited<ReturnType<typeof workspaceWithKey>>;
  let b: Awaited<ReturnType<typeof workspaceWithKey>>;
  before(async () => {
    t = await freshDatabase();
    app = testApp(t.db);
    a = await workspaceWithKey(t.db, { role: 'viewer', scopes: ['leads:read', 'leads:write'] });
    b = await workspaceWithKey(t.db, { role: 'admin', scopes: ['leads:read', 'leads:write'] });
    // A viewer key cannot write (minimum role member): seed workspace A's leads through an admin of A.
  });
  after(() => t.drop());

  const get = (key: string, path: string) => request(app).get(path).set(bearer(key));
  const seedIn = async (w: typeof a, body: Record<string, unknown>) => {
    const admin = await workspaceWithKeyIn(w);
    const res = await postLead(app, admin, intakeBody(body));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data as { id: string; email: string };
  };
  const adminKeys = new Map<string, string>();
  const workspaceWithKeyIn = async (w: typeof a) => {
    if (!adminKeys.has(w.workspace.id)) {
      const email = `admin-${w.workspace.id.slice(0, 8)}@example.com`;
      const workspaceId = w.workspace.id;
      await asOperator(t.db, addMember, { email, role: 'admin' }, { workspaceId });
      const k = await asOperator(
        t.db,
        createApiKey,
        { ownerEmail: email, name: 'admin', scopes: ['leads:write'] },
        { workspaceId },
      );
      adminKeys.set(w.workspace.id, k.key);
    }
    return adminKeys.get(w.workspace.id)!;
  };

  it("GET /leads/{id}: 400 for a non-UUID id, 404 for a missing lead or another workspace's", async () => {
    const theirs = await seedIn(b, {});
    const bad = await get(a.key.key, '/api/v1/leads/123');
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.error, { code: 'invalid_request', message: 'id must be a UUID', field: 'id' });
    assert.equal((await get(a.key.key, '/api/v1/leads/00000000-0000-4000-8000-000000000000')).status, 404);
    const cross = await get(a.key.key, `/api/v1/leads/${theirs.id}`);
    assert.equal(cross.status, 404, "another workspace's lead is not found, not forbidden");
    assert.equal(cross.body.error.code, 'not_found');
    assert.equal((await get(b.key.key, `/api/v1/leads/${theirs.id}`)).status, 200);
  });

  it("a key of workspace A never changes workspace B's leads", async () => {
    const theirs = await seedIn(b, {});
    const res = await request(app)
      .patch(`/api/v1/leads/${theirs.id}`)
      .set(bearer(b.key.key))
      .send({ status: 'CONTACTED' });
    assert.equal(res.status, 200);
    const other = await workspaceWithKey(t.db, { role: 'owner', scopes: ['leads:write', 'leads:read'] });
    const cross = await request(app)
      .patch(`/api/v1/leads/${theirs.id}`)
      .set(bearer(other.key.key))
      .send({ status: 'LOST' });
    assert.equal(cross.status, 404);
    const [row] = await t.db.query<{ status: string }[]>('SELECT status FROM leads WHERE id = $1', [
      theirs.id,
    ]);
    assert.equal(row!.status, 'CONTACTED');
    const search = await get(other.key.key, `/api/v1/leads?query=${encodeURIComponent(theirs.email)}`);
    assert.deepEqual(search.body, { data: [], count: 0 });
  });

  it('recent_activity: last 20 messages on any channel, newest first, bodies cut to 500 characters', async () => {
    const lead = await seedIn(a, { message: 'first message from the form' });
    const channels = ['email', 'sms', 'whatsapp'];
    for (let i = 1; i <= 24; i++) {
      await asOperator(t.db, recordInboundMessage, {
        leadId: lead.id,
        channel: channels[i % 3],
        body: i === 24 ? 'x'.repeat(800) : `reply ${i}`,
      });
    }
    const res = await get(a.key.key, `/api/v1/leads/${lead.id}`);
    assert.equal(res.status, 200);
    const items = res.body.recent_activity as {
      type: string;
      body: string;
      at: string;
      channel: string;
      direction: string;
      status: string;
      id: string;
    }[];
    assert.equal(items.length, 20);
    assert.equal(items[0]!.body, 'x'.repeat(500));
    assert.deepEqual(
      items.slice(1, 4).map((i) => i.body),
      ['reply 23', 'reply 22', 'reply 21'],
    );
    assert.equal(items[19]!.body, 'reply 5');
    for (let i = 1; i < items.length; i++) assert.ok(items[i - 1]!.at >= items[i]!.at, 'newest first');
    assert.deepEqual(Object.keys(items[1]!).sort(), [
      'at',
      'authenticity',
      'body',
      'channel',
      'direction',
      'id',
      'status',
      'type',
    ]);
    assert.equal(items[1]!.type, 'message');
    assert.equal(items[1]!.direction, 'inbound');
    assert.match(items[1]!.at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(res.body.data.needs_attention, true);
  });

  it('records inbound messages with message.received and reply.received', async () => {
    const lead = await seedIn(a, {});
    const msg = await asOperator(t.db, recordInboundMessage, {
      leadId: lead.id,
      channel: 'sms',
      body: 'Yes please',
    });
    const events = (await eventsFor(t.db, lead.id)).slice(-3);
    assert.deepEqual(
      events.map((e) => e.type),
      ['message.received', 'lead.intent_changed', 'reply.received'],
    );
    const reply = events[2]!.data;
    assert.equal(reply.classification, 'POSITIVE');
    assert.equal(reply.message_id, msg.id);
    assert.equal(reply.lead_id, lead.id);
    assert.equal(reply.channel, 'sms');
  });

  it('searches name, email or phone case-insensitively and partially; archived leads are left out', async () => {
    const jo = await seedIn(a, { first_name: 'Joanna', last_name: 'Przybylski', phone: '+33 6 11 22 33 44' });
    const gone = await seedIn(a, { first_name: 'Joanna', last_name: 'Archivedson' });
    await asOperator(t.db, archiveLead, { leadId: gone.id });
    const ids = async (q: string) =>
      (
        (await get(a.key.key, `/api/v1/leads?query=${encodeURIComponent(q)}`)).body.data as { id: string }[]
      ).map((l) => l.id);
    assert.deepEqual(await ids('przyb'), [jo.id]);
    assert.deepEqual(await ids('JOANNA PRZY'), [jo.id]);
    assert.deepEqual(await ids(jo.email.slice(0, 12).toUpperCase()), [jo.id]);
    assert.deepEqual(await ids('06 11 22 33'), [jo.id], 'a phone as the lead would type it');
    assert.deepEqual(await ids('+336112233'), [jo.id]);
    assert.deepEqual(await ids('archivedson'), []);
    assert.deepEqual(await ids('100%_'), [], 'LIKE wildcards are matched literally');
    // The index holds the text without separators; a match only there is not a match.
    assert.deepEqual(await ids('joannaprzy'), []);
    assert.deepEqual(await ids('joanna-przy'), []);
    assert.equal(
      (await get(a.key.key, `/api/v1/leads/${gone.id}`)).status,
      200,
      'archived leads stay readable by id',
    );
  });

  it('filters by status and needs_attention, limits 1-50 (default 25), and answers { data, count }', async () => {
    const fresh = await workspaceWithKey(t.db, { role: 'admin', scopes: ['leads:read', 'leads:write'] });
    for (let i = 0; i < 30; i++)
      await postLead(app, fresh.key.key, intakeBody(i < 3 ? { message: 'hello' } : {}));
    const page = await get(fresh.key.key, '/api/v1/leads');
    assert.equal(page.status, 200);
    assert.equal(page.body.data.length, 25);
    assert.equal(page.body.count, 25);
    const created = (page.body.data as { created_at: string }[]).map((l) => l.created_at);
    assert.deepEqual([...created].sort().reverse(), created, 'newest first');
    assert.equal((await get(fresh.key.key, '/api/v1/leads?limit=50')).body.count, 30);
    assert.equal((await get(fresh.key.key, '/api/v1/leads?needs_attention=true')).body.count, 3);
    assert.equal((await get(fresh.key.key, '/api/v1/leads?needs_attention=false&limit=50')).body.count, 27);
    assert.equal((await get(fresh.key.key, '/api/v1/leads?status=NEW&limit=1')).body.count, 1);
    assert.equal((await get(fresh.key.key, '/api/v1/leads?status=WON')).body.count, 0);
    const bad: [string, string][] = [
      ['limit=0', 'limit'],
      ['limit=51', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=2.5', 'limit'],
      ['status=DONE', 'status'],
      ['needs_attention=yes', 'needs_attention'],
      ['limit=1&limit=2', 'limit'],
      ['sort=name', 'sort'],
    ];
    for (const [qs, field] of bad) {
      const res = await get(fresh.key.key, `/api/v1/leads?${qs}`);
      assert.equal(res.status, 400, qs);
      assert.equal(res.body.error.code, 'invalid_request');
      assert.equal(
        res.body.error.field ?? (/sort/.test(res.body.error.message) ? 'sort' : undefined),
        field,
        qs,
      );
    }
  });

  it('a viewer may read but not write (the narrower of scope and role wins)', async () => {
    const res = await postLead(app, a.key.key, intakeBody());
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'forbidden');
  });

  it('leaves out of the index the trigrams most leads share, and finds the same leads', async () => {
    const w = await workspaceWithKey(t.db, { role: 'viewer', scopes: ['leads:read'] });
    await t.db.query(
      `INSERT INTO leads (workspace_id, first_name, last_name, email, source)
       SELECT $1, 'Ann' || i, 'Roe' || i, 'ann' || i || '.roe' || i || '@example.com', 'seed'
         FROM generate_series(1, 3000) i`,
      [w.workspace.id],
    );
    await t.db.query('ANALYZE leads');
    const common = await measureCommonTrigrams(t.db);
    for (const trigram of ['exa', 'eco', 'com']) assert.ok(common.has(trigram), `${trigram} is common`);
    assert.ok(!common.has('n12'), 'a trigram of a few leads is not');
    assert.deepEqual(rareStretches('zed12eco', common), ['zed12ec'], 'eco is left out of what is asked');
    const page = async (query: string): Promise<string[]> => {
      const res = await get(w.key.key, `/api/v1/leads?query=${encodeURIComponent(query)}&limit=50`);
      return (res.body.data as { email: string }[]).map((l) => l.email).sort();
    };
    const queries = ['ann12.roe12@example.com', 'ann1234.ro', 'e1234@exa', 'ann7 roe7'];
    try {
      setCommonTrigrams(t.db, new Set());
      const asBefore = await Promise.all(queries.map(page));
      setCommonTrigrams(t.db, common);
      assert.deepEqual(await Promise.all(queries.map(page)), asBefore);
      assert.deepEqual(asBefore[0], ['ann12.roe12@example.com']);
      assert.deepEqual(asBefore[1], ['ann1234.roe1234@example.com']);
    } finally {
      setCommonTrigrams(t.db, new Set());
    }
  });

  it('serves query searches from the trigram index on a workspace with many leads', async () => {
    const big = await workspaceWithKey(t.db, { role: 'viewer', scopes: ['leads:read'] });
    await t.db.query(
      `INSERT INTO leads (workspace_id, first_name, last_name, email, source)
       SELECT $1, 'First' || i, 'Last' || i, 'person' || i || '@example.com', 'seed' FROM generate_series(1, 20000) i`,
      [big.workspace.id],
    );
    await t.db.query('ANALYZE leads');
    // At 20,000 rows a sequential scan is still cheap; forbid it to see which index the query shape can use
    // (the api benchmark checks the real plan on 1,000,000 leads).
    const plan = await t.db.transaction(async (m) => {
      await m.query('SET LOCAL enable_seqscan = off');
      return m.query<{ 'QUERY PLAN': string }[]>(
        `EXPLAIN SELECT id FROM leads WHERE workspace_id = $1 AND archived_at IS NULL
            AND translate(search_text, ' .@+-_''', '') LIKE '%last1234%' AND search_text LIKE '%last1234%'
          ORDER BY created_at DESC, id DESC LIMIT 25`,
        [big.workspace.id],
      );
    });
    assert.match(plan.map((r) => r['QUERY PLAN']).join('\n'), /leads_search/);
    // A common fragment is answered from the newest leads; the page is the same newest-first page.
    const common = await get(big.key.key, '/api/v1/leads?query=first1&limit=25');
    assert.equal(common.body.count, 25);
    const created = common.body.data.map((l: { created_at: string }) => l.created_at);
    assert.deepEqual([...created].sort().reverse(), created);
    assert.ok(
      common.body.data.every((l: { first_name: string }) => l.first_name.toLowerCase().includes('first1')),
    );
    const [newest] = await t.db.query<{ first_name: string }[]>(
      `SELECT first_name FROM leads WHERE workspace_id = $1 AND search_text LIKE '%first1%' ORDER BY created_at DESC, id DESC LIMIT 1`,
      [big.workspace.id],
    );
    assert.equal(common.body.data[0].first_name, newest!.first_name);
    // A two-part fragment is asked of the index first; one that every lead matches is still answered
    // newest first, from the newest leads.
    const everyone = await get(big.key.key, '/api/v1/leads?query=e.com&limit=25');
    assert.deepEqual(
      everyone.body.data.map((l: { id: string }) => l.id),
      (
        await t.db.query<{ id: string }[]>(
          `SELECT id FROM leads WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC LIMIT 25`,
          [big.workspace.id],
        )
      ).map((r) => r.id),
    );
    const one = await get(big.key.key, '/api/v1/leads?query=first1234%20last1234');
    assert.deepEqual(
      one.body.data.map((l: { last_name: string }) => l.last_name),
      ['Last1234'],
    );
    const res = await get(big.key.key, '/api/v1/leads?query=LAST12345');
    assert.deepEqual(
      res.body.data.map((l: { last_name: string }) => l.last_name),
      ['Last12345'],
    );
  });
});
