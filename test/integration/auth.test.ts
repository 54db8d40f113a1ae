import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { revokeApiKey } from '../../domain/identity/operations/key-revoke';
import { removeMember } from '../../domain/identity/operations/member-remove';
import { setMemberRole } from '../../domain/identity/operations/member-set-role';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, bearer, workspaceWithKey } from '../helpers/fixtures';

const UNAUTHORIZED = {
  error: {
    code: 'unauthorized',
    message: 'The API key is missing, invalid, expired, revoked or not allowed from this address.',
  },
};
const FORBIDDEN = { error: { code: 'forbidden', message: 'This API key is not allowed to do this.' } };

type AuditRow = {
  action: string;
  outcome: string;
  reason: string | null;
  status: number;
  key_prefix: string | null;
};

describe('API keys, permissions and audit', () => {
  let t: TestDatabase;
  let app: ReturnType<typeof testApp>;
  const auditFor = async (requestId: string) =>
    (await t.db.query<AuditRow[]>('SELECT * FROM audit_log WHERE request_id = $1', [requestId]))[0];

  before(async () => {
    t = await freshDatabase();
    app = testApp(t.db);
  });
  after(() => t.drop());

  it('stores only the SHA-256 fingerprint and a 12-character prefix of a new key', async () => {
    const { key } = await workspaceWithKey(t.db);
    assert.match(key.key, /^lk_live_[0-9A-Za-z]{40}$/);
    const [row] = await t.db.query<
      { fingerprint: Buffer; prefix: string; expires_at: Date; created_at: Date }[]
    >('SELECT fingerprint, prefix, expires_at, created_at FROM api_keys WHERE id = $1', [key.id]);
    assert.deepEqual(row!.fingerprint, createHash('sha256').update(key.key).digest());
    assert.equal(row!.prefix, key.key.slice(0, 12));
    const days = (row!.expires_at.getTime() - row!.created_at.getTime()) / 86_400_000;
    assert.ok(Math.abs(days - 90) < 0.01, `default expiry is 90 days, got ${days}`);
    const dump = JSON.stringify(await t.db.query('SELECT * FROM api_keys'));
    assert.ok(!dump.includes(key.key), 'the key itself is stored nowhere');
    assert.ok(!JSON.stringify(await t.db.query('SELECT * FROM audit_log')).includes(key.key));
  });

  it('answers GET /me exactly as the spec shows', async () => {
    const { key, workspace } = await workspaceWithKey(t.db, { role: 'viewer', scopes: ['business:read'] });
    const res = await request(app).get('/api/v1/me').set(bearer(key.key)).expect(200);
    assert.deepEqual(res.body, {
      workspace: {
        id: workspace.id,
        name: workspace.name,
        timezone: 'Europe/Paris',
        industry: '',
        status: 'active',
      },
      key: { name: key.name, environment: 'live', scopes: ['business:read'] },
      acting_as: { role: 'viewer' },
    });
    assert.match(res.headers['request-id'] as string, /^req_[0-9a-f]{32}$/);
  });

  it('refuses every failing check with the same 401 body, and audits the real reason', async () => {
    const { key: good } = await workspaceWithKey(t.db);
    const { key: revoked } = await workspaceWithKey(t.db);
    await asOperator(t.db, revokeApiKey, { id: revoked.id });
    const past = new Date(Date.now() - 2 * 86_400_000);
    const { key: expired } = await workspaceWithKey(t.db, { expiresInDays: 1, now: past });
    const { key: fenced } = await workspaceWithKey(t.db, { allowedCidrs: ['203.0.113.0/24'] });
    const unknown = 'lk_live_' + 'x'.repeat(40);
    const cases: [string, Record<string, string>, RegExp][] = [
      ['missing header', {}, /no bearer key/],
      ['not bearer', { Authorization: `Basic ${good.key}` }, /no bearer key/],
      ['malformed', bearer('sk_test_123'), /malformed/],
      ['unknown', bearer(unknown), /unknown key/],
      ['revoked', bearer(revoked.key), /revoked/],
      ['expired', bearer(expired.key), /expired/],
      ['ip not allowed', bearer(fenced.key), /allowlist/],
    ];
    for (const [name, headers, reason] of cases) {
      const res = await request(app).get('/api/v1/me').set(headers);
      assert.equal(res.status, 401, name);
      assert.deepEqual(res.body, UNAUTHORIZED, name);
      const row = await auditFor(res.headers['request-id'] as string);
      assert.ok(row, `audit row for ${name}`);
      assert.equal(row.outcome, 'refused');
      assert.equal(row.status, 401);
      assert.match(row.reason ?? '', reason, name);
    }
    const unknownRow = await auditFor(
      (await request(app).get('/api/v1/me').set(bearer(unknown))).headers['request-id'] as string,
    );
    assert.equal(
      unknownRow!.key_prefix,
      unknown.slice(0, 12),
      'unknown keys are audited by prefix, never whole',
    );
  });

  it('revocation takes effect on the next call', async () => {
    const { key } = await workspaceWithKey(t.db);
    await request(app).get('/api/v1/me').set(bearer(key.key)).expect(200);
    await asOperator(t.db, revokeApiKey, { id: key.id });
    await request(app).get('/api/v1/me').set(bearer(key.key)).expect(401);
  });

  it('applies the IP allowlist to the caller address, trusting X-Forwarded-For only behind a proxy', async () => {
    const { key } = await workspaceWithKey(t.db, { allowedCidrs: ['198.51.100.0/24', '2001:db8::/32'] });
    const proxied = testApp(t.db, { trustProxy: true });
    await request(proxied)
      .get('/api/v1/me')
      .set(bearer(key.key))
      .set('X-Forwarded-For', '198.51.100.7')
      .expect(200);
    await request(proxied)
      .get('/api/v1/me')
      .set(bearer(key.key))
      .set('X-Forwarded-For', '2001:db8::1')
      .expect(200);
    await request(proxied)
      .get('/api/v1/me')
      .set(bearer(key.key))
      .set('X-Forwarded-For', '198.51.101.7')
      .expect(401);
    // Without TRUST_PROXY the header is ignored and the socket address (loopback) is not listed.
    await request(app)
      .get('/api/v1/me')
      .set(bearer(key.key))
      .set('X-Forwarded-For', '198.51.100.7')
      .expect(401);
    const { key: loopback } = await workspaceWithKey(t.db, { allowedCidrs: ['127.0.0.0/8', '::1/128'] });
    await request(app).get('/api/v1/me').set(bearer(loopback.key)).expect(200);
  });

  it('checks the scope and the live role on every call; demotion and removal bite at once', async () => {
    const { key, workspace, email } = await workspaceWithKey(t.db, {
      role: 'member',
      scopes: ['business:read'],
    });
    await request(app).get('/api/v1/me').set(bearer(key.key)).expect(200);

    await asOperator(t.db, setMemberRole, { email, role: 'viewer' }, { workspaceId: workspace.id });
    const demoted = await request(app).get('/api/v1/me').set(bearer(key.key)).expect(200);
    assert.equal(demoted.body.acting_as.role, 'viewer', 'the new role shows on the next call');

    await asOperator(t.db, removeMember, { email }, { workspaceId: workspace.id });
    const removed = await request(app).get('/api/v1/me').set(bearer(key.key)).expect(403);
    assert.deepEqual(removed.body, FORBIDDEN);
    assert.match((await auditFor(removed.headers['request-id'] as string))!.reason!, /no longer a member/);

    const { key: noScope } = await workspaceWithKey(t.db, { role: 'owner', scopes: ['leads:read'] });
    const scoped = await request(app).get('/api/v1/me').set(bearer(noScope.key)).expect(403);
    assert.deepEqual(scoped.body, FORBIDDEN, 'a missing scope and a missing role look the same');
    assert.match(
      (await auditFor(scoped.headers['request-id'] as string))!.reason!,
      /lacks scope business:read/,
    );
  });

  it('audits allowed calls with key, workspace, route, request id and client address', async () => {
    const { key, workspace } = await workspaceWithKey(t.db);
    const res = await request(app).get('/api/v1/me').set(bearer(key.key)).expect(200);
    const [row] = await t.db.query<Record<string, unknown>[]>(
      'SELECT * FROM audit_log WHERE request_id = $1',
      [res.headers['request-id']],
    );
    assert.equal(row!.door, 'rest');
    assert.equal(row!.action, 'GET /api/v1/me');
    assert.equal(row!.outcome, 'allowed');
    assert.equal(row!.workspace_id, workspace.id);
    assert.equal(row!.key_id, key.id);
    assert.equal(row!.key_prefix, key.prefix);
    assert.match(String(row!.client_ip), /^(127\.0\.0\.1|::1)$/);
    assert.ok(row!.at instanceof Date);
  });

  it('sends no CORS headers, refuses preflight, and answers unknown routes in the error shape', async () => {
    const { key } = await workspaceWithKey(t.db);
    const origin = { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET' };
    const responses = [
      await request(app).options('/api/v1/me').set(origin),
      await request(app).options('/api/v1/me').set(origin).set(bearer(key.key)),
      await request(app).get('/api/v1/me').set(origin).set(bearer(key.key)),
      await request(app).get('/api/v1/me').set(origin),
      await request(app).get('/api/v1/nope').set(origin).set(bearer(key.key)),
    ];
    for (const res of responses) {
      for (const header of Object.keys(res.headers)) assert.ok(!header.startsWith('access-control-'), header);
      assert.ok(res.headers['request-id']);
    }
    assert.equal(responses[0]!.status, 401);
    assert.equal(responses[1]!.status, 404);
    assert.equal(responses[4]!.status, 404);
    assert.equal(responses[4]!.body.error.code, 'not_found');
  });

  it('accepts JSON bodies only and refuses bodies over 1 MB', async () => {
    const { key } = await workspaceWithKey(t.db);
    const big = await request(app)
      .post('/api/v1/me')
      .set(bearer(key.key))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }));
    assert.equal(big.status, 413);
    assert.equal(big.body.error.code, 'invalid_request');
    const form = await request(app).post('/api/v1/me').set(bearer(key.key)).type('form').send('a=1');
    assert.equal(form.status, 400);
    assert.deepEqual(form.body.error, {
      code: 'invalid_request',
      message: 'Content-Type must be application/json.',
      field: 'content-type',
    });
    const broken = await request(app).post('/api/v1/me').set(bearer(key.key)).type('json').send('{"a":');
    assert.equal(broken.status, 400);
    assert.equal(broken.body.error.field, 'body');
  });
});
