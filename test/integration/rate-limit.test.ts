import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../../domain/data-source';
import { waitFor } from '../../tooling/processes';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { bearer, workspaceWithKey } from '../helpers/fixtures';

/** Seconds into the current minute by the database clock, which sets the windows. */
const secondsIntoMinute = async (db: DataSource) =>
  (await db.query<{ s: number }[]>(`SELECT extract(second FROM clock_timestamp())::float AS s`))[0]!.s;

describe('rate limit: 300 requests a minute per key, shared by every API process', () => {
  let t: TestDatabase;
  let second: DataSource;
  before(async () => {
    t = await freshDatabase();
    // A second instance with its own pool, as a second process would have: only the database is shared.
    second = await openDatabase(t.url, { poolSize: 5 });
  });
  after(async () => {
    await second.destroy();
    await t.drop();
  });

  it('counts requests to two instances together and answers the 301st with 429', async () => {
    const { key } = await workspaceWithKey(t.db);
    const { key: other } = await workspaceWithKey(t.db);
    const apps = [testApp(t.db), testApp(second)];
    // 301 requests must land in one window: start early in a minute.
    await waitFor('the start of a minute', async () => (await secondsIntoMinute(t.db)) < 30, 40_000, 200);
    for (let i = 0; i < 300; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          request(apps[(i + j) % 2]!)
            .get('/api/v1/me')
            .set(bearer(key.key)),
        ),
      );
      for (const res of batch) {
        assert.equal(res.status, 200);
        assert.equal(res.headers['ratelimit-policy'], '"default";q=300;w=60');
        assert.match(res.headers['ratelimit'] as string, /^"default";r=\d+;t=\d+$/);
      }
    }
    const last = await request(apps[0]!).get('/api/v1/me').set(bearer(key.key));
    assert.equal(last.status, 429);
    assert.equal(last.body.error.code, 'rate_limited');
    const retryAfter = last.body.error.retry_after as number;
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
    assert.equal(last.headers['retry-after'], String(retryAfter));
    assert.match(last.headers['ratelimit'] as string, /^"default";r=0;t=\d+$/);
    const viaSecond = await request(apps[1]!).get('/api/v1/me').set(bearer(key.key));
    assert.equal(viaSecond.status, 429, 'the other instance refuses too');
    const [row] = await t.db.query<{ reason: string }[]>(
      'SELECT reason FROM audit_log WHERE request_id = $1',
      [last.headers['request-id']],
    );
    assert.match(row!.reason, /rate limit/);
    // Another key of the same service is unaffected.
    const fresh = await request(apps[1]!).get('/api/v1/me').set(bearer(other.key)).expect(200);
    assert.match(fresh.headers['ratelimit'] as string, /^"default";r=299;/);
  });
});
