import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { repoRoot } from '../../tooling/paths';
import { freePort, stopChild, waitFor } from '../../tooling/processes';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { bearer, workspaceWithKey } from '../helpers/fixtures';

/** Seconds into the current minute by the database clock, which sets the windows. */
const secondsIntoMinute = async (db: DataSource) =>
  (await db.query<{ s: number }[]>(`SELECT extract(second FROM clock_timestamp())::float AS s`))[0]!.s;

/** The API as production runs it (`api/main.ts`), its own process on its own port: only the database is shared. */
async function spawnApi(databaseUrl: string) {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    cwd: repoRoot(),
    env: {
      ...process.env,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: '0',
      DATABASE_URL: databaseUrl,
      // Dialled only by an approval or booking, neither of which happens here.
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`the API exited (${code}) while starting: ${stderr}`))),
  );
  exited.catch(() => undefined); // a later stop is not a failure to start
  // Any answer will do (401 without a key): it is listening.
  await Promise.race([
    exited,
    waitFor(
      'the API to answer',
      async () => (await fetch(`${url}/api/v1/me`).catch(() => undefined))?.status,
      60_000,
    ),
  ]);
  return { url, stop: () => stopChild(child) };
}

describe('rate limit: 300 requests a minute per key, shared by every API process', () => {
  let t: TestDatabase;
  let apis: Awaited<ReturnType<typeof spawnApi>>[] = [];
  before(async () => {
    t = await freshDatabase();
    apis = await Promise.all([spawnApi(t.url), spawnApi(t.url)]);
  });
  after(async () => {
    await Promise.all(apis.map((a) => a.stop()));
    await t.drop();
  });

  it('counts requests to two API processes together and answers the 301st with 429', async () => {
    const { key } = await workspaceWithKey(t.db);
    const { key: other } = await workspaceWithKey(t.db);
    const apps = apis.map((a) => a.url);
    // 301 requests must land in one window: start early in a minute.
    await waitFor('the start of a minute', async () => (await secondsIntoMinute(t.db)) < 30, 40_000, 200);
    const remaining: number[] = [];
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
        const [, r] = /^"default";r=(\d+);t=\d+$/.exec(res.headers['ratelimit'] ?? '') ?? [];
        assert.ok(r !== undefined, res.headers['ratelimit']);
        remaining.push(Number(r));
      }
    }
    // Requests arriving together are counted in one statement; each still gets its own place.
    assert.deepEqual(
      remaining.sort((a, b) => a - b),
      Array.from({ length: 300 }, (_, i) => i),
    );
    const last = await request(apps[0]!).get('/api/v1/me').set(bearer(key.key));
    assert.equal(last.status, 429);
    assert.equal(last.body.error.code, 'rate_limited');
    const retryAfter = last.body.error.retry_after as number;
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
    assert.equal(last.headers['retry-after'], String(retryAfter));
    assert.match(last.headers['ratelimit'] as string, /^"default";r=0;t=\d+$/);
    const viaSecond = await request(apps[1]!).get('/api/v1/me').set(bearer(key.key));
    assert.equal(viaSecond.status, 429, 'the other instance refuses too');
    // The API process writes its audit rows in batches, a moment after the answer.
    const row = await waitFor('the refusal to be audited', async () => {
      const rows = await t.db.query<{ reason: string }[]>(
        'SELECT reason FROM audit_log WHERE request_id = $1',
        [last.headers['request-id']],
      );
      return rows[0];
    });
    assert.match(row.reason, /rate limit/);
    // Another key of the same service is unaffected.
    const fresh = await request(apps[1]!).get('/api/v1/me').set(bearer(other.key)).expect(200);
    assert.match(fresh.headers['ratelimit'] as string, /^"default";r=299;/);
  });

  it('limits refused requests per client address with 429, before any key lookup, and keeps their audit rows small', async () => {
    const { key } = await workspaceWithKey(t.db);
    const app = testApp(t.db, { trustProxy: true, config: { refusedPerMinute: 5 } });
    const from = (ip: string, auth: string, path = '/api/v1/me') =>
      request(app).get(path).set('Authorization', auth).set('X-Forwarded-For', ip);
    const junk = `/api/v1/leads/${'%3Cscript%3E'.repeat(200)}`;
    for (let i = 0; i < 5; i++) {
      const res = await from('203.0.113.50', 'Bearer nonsense', junk);
      assert.equal(res.status, 401);
      // Each 401 says how much of the address's allowance of refusals is left.
      assert.equal(res.headers['ratelimit-policy'], '"refused";q=5;w=60');
      assert.match(res.headers['ratelimit'] as string, new RegExp(`^"refused";r=${4 - i};t=\\d+$`));
    }
    const limited = await from('203.0.113.50', 'Bearer nonsense');
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, 'rate_limited');
    assert.ok(limited.body.error.retry_after >= 1 && limited.body.error.retry_after <= 60);
    assert.equal(limited.headers['retry-after'], String(limited.body.error.retry_after));
    // Even a good key waits: the address is refused before its key is looked up.
    assert.equal((await from('203.0.113.50', `Bearer ${key.key}`)).status, 429);
    assert.equal(
      (await from('203.0.113.51', `Bearer ${key.key}`)).status,
      200,
      'other addresses are unaffected',
    );
    // An IPv6 subscriber's /64 counts as one address.
    for (let i = 0; i < 5; i++) await from(`2001:db8:1:2::${i + 1}`, 'Bearer nonsense');
    assert.equal((await from('2001:db8:1:2::ffff', 'Bearer nonsense')).status, 429);
    assert.equal((await from('2001:db8:1:3::1', 'Bearer nonsense')).status, 401);

    const rows = await t.db.query<{ action: string; reason: string; status: number }[]>(
      `SELECT action, reason, status FROM audit_log WHERE client_ip = '203.0.113.50' ORDER BY id`,
    );
    assert.equal(rows.length, 7, 'every request is audited, the limited ones too');
    for (const r of rows) assert.ok(r.action.length <= 120 && !/[<>%]/.test(r.action), r.action);
    assert.deepEqual(
      rows.slice(5).map((r) => [r.status, r.reason]),
      [
        [429, 'too many refused requests from this address'],
        [429, 'too many refused requests from this address'],
      ],
    );
  });
});
