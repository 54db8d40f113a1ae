import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { openDatabase } from '../../domain/data-source';
import { waitFor } from '../../tooling/processes';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { bearer, workspaceWithKey } from '../helpers/fixtures';

const timeouts = { connectTimeoutMs: 300, statementTimeoutMs: 400, idleInTransactionTimeoutMs: 500 };

/**
 * A stalled PostgreSQL must cost callers a quick 503, not a request that never ends: here a table
 * lock held by another session stands in for the stall (the chaos suite freezes the real server).
 */
describe('timeouts: database waits, the request deadline and the audit backlog', () => {
  let t: TestDatabase;
  before(async () => {
    t = await freshDatabase();
  });
  after(() => t.drop());

  /** Runs `body` while another session holds an exclusive lock on `table`. */
  const whileLocked = async <T>(table: string, body: () => Promise<T>): Promise<T> => {
    const holder = t.db.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    await holder.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    try {
      return await body();
    } finally {
      await holder.rollbackTransaction();
      await holder.release();
    }
  };

  it('answers 503 with a request id at the deadline, and audits the request when its work ends', async () => {
    const w = await workspaceWithKey(t.db);
    const app = testApp(t.db, { config: { requestTimeoutMs: 1_000 } });
    const started = Date.now();
    const res = await whileLocked('api_keys', () => request(app).get('/api/v1/me').set(bearer(w.key.key)));
    const took = Date.now() - started;
    assert.equal(res.status, 503);
    assert.equal(res.body.error.code, 'unavailable');
    assert.match(res.body.error.request_id, /^req_[0-9a-f]{32}$/);
    assert.equal(res.headers['request-id'], res.body.error.request_id);
    assert.equal(res.headers['retry-after'], '5');
    assert.ok(took < 3_000, `answered at the deadline, not after the lock (${took} ms)`);
    const row = await waitFor('the late audit row', async () => {
      const [r] = await t.db.query<{ status: number; outcome: string; reason: string }[]>(
        'SELECT status, outcome, reason FROM audit_log WHERE request_id = $1',
        [res.body.error.request_id],
      );
      return r;
    });
    assert.deepEqual(row, {
      status: 503,
      outcome: 'failed',
      reason: 'answered 503 at the request deadline; the work ended after it',
    });
  });

  it('sheds requests with 503 while the audit backlog is full, and recovers once rows are written', async () => {
    const w = await workspaceWithKey(t.db);
    const app = testApp(t.db, { config: { auditQueueLimit: 3, requestTimeoutMs: 20_000 } });
    const shed = await whileLocked('audit_log', async () => {
      // Three requests fill the backlog (their rows cannot be written while the table is locked)...
      const waiting = Array.from({ length: 3 }, () => request(app).get('/api/v1/me').set(bearer(w.key.key)));
      const held = waiting.map((r) => r.then((x) => x));
      // Rows waiting on the lock, however the writer batched them: one `(...)` group per row.
      await waitFor('three rows waiting', async () => {
        const [{ n }] = await t.db.query<[{ n: number }]>(
          `SELECT coalesce(sum(array_length(regexp_split_to_array(query, '[(][$]'), 1) - 1), 0)::int AS n
             FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO audit_log%'`,
        );
        return n >= 3;
      });
      // ...so the fourth is refused at once, before any work.
      const refused = await request(app).get('/api/v1/me').set(bearer(w.key.key));
      return { refused, held };
    });
    assert.equal(shed.refused.status, 503);
    assert.equal(shed.refused.body.error.code, 'unavailable');
    assert.ok(shed.refused.body.error.request_id);
    for (const r of await Promise.all(shed.held))
      assert.equal(r.status, 200, `the queued requests finish: ${JSON.stringify(r.body)}`);
    await request(app).get('/api/v1/me').set(bearer(w.key.key)).expect(200);
  });

  it('answers 503, not 500, when the database times out a statement, the audit write included', async () => {
    const w = await workspaceWithKey(t.db);
    const db = await openDatabase(t.url, { poolSize: 3, timeouts });
    try {
      const app = testApp(db, { config: { requestTimeoutMs: 30_000 } });
      for (const table of ['api_keys', 'audit_log']) {
        const res = await whileLocked(table, () => request(app).get('/api/v1/me').set(bearer(w.key.key)));
        assert.equal(res.status, 503, `${table} locked: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error.code, 'unavailable');
        assert.match(res.body.error.request_id, /^req_/);
        assert.equal(res.headers['retry-after'], '5');
      }
    } finally {
      await db.destroy();
    }
  });

  it('gives every pooled connection statement and idle-in-transaction timeouts', async () => {
    const db = await openDatabase(t.url, { poolSize: 1, timeouts });
    try {
      await assert.rejects(db.query('SELECT pg_sleep(5)'), /statement timeout/);
      const [s] = await db.query<{ statement_timeout: string }[]>('SHOW statement_timeout');
      assert.equal(s!.statement_timeout, '400ms');
      const [i] = await db.query<{ idle_in_transaction_session_timeout: string }[]>(
        'SHOW idle_in_transaction_session_timeout',
      );
      assert.equal(i!.idle_in_transaction_session_timeout, '500ms');
    } finally {
      await db.destroy();
    }
  });

  it('gives up connecting to a server that accepts and never answers', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const started = Date.now();
    try {
      await assert.rejects(openDatabase(`postgres://nobody@127.0.0.1:${port}/none`, { timeouts }));
      assert.ok(Date.now() - started < 5_000, 'gave up at the connect timeout');
    } finally {
      silent.close();
    }
  });
});
