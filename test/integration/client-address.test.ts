import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createApiKey } from '../../domain/identity/operations/key-create';
import { DomainError } from '../../domain/kernel/errors';
import { parseCidr } from '../../domain/identity/ip-allowlist';
import { authenticateKey } from '../../domain/identity/authenticate';
import { fingerprintKey } from '../../domain/identity/keys';
import { presentedKeys } from '../../domain/identity/repository/presented-keys';
import { Data } from '../../domain/kernel/data';
import { Hardening1763800500000 } from '../../domain/migrations/1763800500000-hardening';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, bearer, workspaceWithKey } from '../helpers/fixtures';

/** Regression tests for the security review: the client address behind a proxy, and allowlist entries. */
describe('the client address and IP allowlists', () => {
  let t: TestDatabase;
  before(async () => {
    t = await freshDatabase();
  });
  after(() => t.drop());

  const lastAuditIp = async (keyId: string) =>
    (
      await t.db.query<{ client_ip: string | null; outcome: string }[]>(
        'SELECT client_ip, outcome FROM audit_log WHERE key_id = $1 ORDER BY id DESC LIMIT 1',
        [keyId],
      )
    )[0]!;

  it('takes the address the trusted proxy appended, not one the client wrote in X-Forwarded-For', async () => {
    const { key } = await workspaceWithKey(t.db, { allowedCidrs: ['198.51.100.0/24'] });
    const app = testApp(t.db, { trustProxy: true });
    // The client forged an allowed address; the one proxy in front appended the real one.
    const forged = await request(app)
      .get('/api/v1/me')
      .set(bearer(key.key))
      .set('X-Forwarded-For', '198.51.100.7, 203.0.113.9');
    assert.equal(forged.status, 401);
    assert.deepEqual(await lastAuditIp(key.id), { client_ip: '203.0.113.9', outcome: 'refused' });
    const real = await request(app)
      .get('/api/v1/me')
      .set(bearer(key.key))
      .set('X-Forwarded-For', '203.0.113.9, 198.51.100.7');
    assert.equal(real.status, 200);
    assert.equal((await lastAuditIp(key.id)).client_ip, '198.51.100.7');
  });

  it('reads repeated X-Forwarded-For headers as one list, and refuses an entry that is not an address', async () => {
    const { key } = await workspaceWithKey(t.db, { allowedCidrs: ['198.51.100.0/24'] });
    const server = http.createServer(testApp(t.db, { trustProxy: true }) as http.RequestListener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const status = (headers: string[]) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/api/v1/me',
            // Raw header pairs keep repeats apart (and need Host spelled out).
            headers: ['Host', `127.0.0.1:${port}`, 'Authorization', `Bearer ${key.key}`, ...headers],
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
    assert.equal(await status(['X-Forwarded-For', '198.51.100.7', 'X-Forwarded-For', '203.0.113.9']), 401);
    assert.equal(await status(['X-Forwarded-For', '203.0.113.9', 'X-Forwarded-For', '198.51.100.7']), 200);
    assert.equal(await status(['X-Forwarded-For', '198.51.100.7, not-an-address']), 401);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('never reads a malformed allowlist entry as a wider network', () => {
    for (const bad of [
      '203.0.113.5/',
      '10.0.0.0/8/32',
      '10.0.0.0/08',
      '10.0.0.0/+8',
      '10.0.0.0 /8',
      '1.2.3.4/ 8',
    ])
      assert.equal(parseCidr(bad), undefined, bad);
    assert.deepEqual(parseCidr('10.1.2.3/8'), { address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    assert.deepEqual(parseCidr('2001:db8::1/32'), { address: '2001:db8::', prefix: 32, family: 'ipv6' });
  });

  it('refuses a malformed entry at key creation, naming it, and stores the normalised network', async () => {
    const { workspace, email } = await workspaceWithKey(t.db);
    const create = (allowedCidrs: string[]) =>
      asOperator(
        t.db,
        createApiKey,
        { ownerEmail: email, name: 'k', scopes: ['leads:read'], allowedCidrs },
        {
          workspaceId: workspace.id,
        },
      );
    await assert.rejects(create(['198.51.100.0/24', '203.0.113.5/']), (err: unknown) => {
      assert.ok(err instanceof DomainError);
      assert.equal(err.code, 'invalid_request');
      assert.match(err.message, /203\.0\.113\.5\/ is not an IP address or CIDR/);
      return true;
    });
    const made = await create(['10.1.2.3/8', ' 2001:db8::1/32 ', '192.0.2.7']);
    assert.deepEqual(made.allowed_cidrs, ['10.0.0.0/8', '2001:db8::/32', '192.0.2.7/32']);
  });

  it('decides the address in the key lookup: empty allows anywhere, a list only its networks', async () => {
    const cases: [string[], string | undefined, boolean][] = [
      [[], undefined, true],
      [['10.0.0.0/8'], '10.1.2.3', true],
      [['10.0.0.0/8'], '::ffff:10.1.2.3', true],
      [['10.0.0.0/8'], '11.1.2.3', false],
      [['10.0.0.0/8'], undefined, false],
      [['10.0.0.0/8'], 'not-an-address', false],
      [['2001:db8::/32'], '2001:db8::5', true],
      [['2001:db8::/32'], '10.1.2.3', false],
      [['192.0.2.1'], '192.0.2.1', true],
      [['192.0.2.1'], '192.0.2.2', false],
    ];
    for (const [allowedCidrs, ip, ok] of cases) {
      const { key } = await workspaceWithKey(t.db, { allowedCidrs });
      const result = await authenticateKey(t.db, key.key, ip);
      assert.equal(result.ok, ok, `${JSON.stringify(allowedCidrs)} from ${ip}`);
    }
  });

  it("does not count a request from outside the allowlist against the key's rate limit", async () => {
    const { key } = await workspaceWithKey(t.db, { allowedCidrs: ['198.51.100.0/24'] });
    const app = testApp(t.db, { trustProxy: true, rateLimitPerMinute: 3 });
    const from = (ip: string) =>
      request(app).get('/api/v1/me').set(bearer(key.key)).set('X-Forwarded-For', ip);
    for (let i = 0; i < 5; i++) assert.equal((await from('203.0.113.9')).status, 401);
    const ok = await from('198.51.100.7');
    assert.equal(ok.status, 200);
    assert.match(ok.headers.ratelimit ?? '', /r=2;/, 'the five refused requests used none of the quota');
  });

  it('counts only the allowed presentations when one lookup holds the same key from both kinds of address', async () => {
    const { key } = await workspaceWithKey(t.db, { allowedCidrs: ['198.51.100.0/24'] });
    const fingerprint = fingerprintKey(key.key);
    const presented = (address: string) => ({ fingerprint, countRequest: true, address });
    // As the API batches requests arriving together: a refused address first, then two allowed ones.
    const rows = await presentedKeys(new Data(t.db.manager, undefined), [
      presented('203.0.113.9'),
      presented('198.51.100.7'),
      presented('198.51.100.8'),
    ]);
    assert.deepEqual(
      rows.map((r) => [r?.address_allowed, r?.hits]),
      [
        [false, null],
        [true, 1],
        [true, 2],
      ],
    );
    const [{ hits }] = await t.db.query<[{ hits: number }]>(
      'SELECT hits FROM rate_limit_windows WHERE key_id = $1',
      [key.id],
    );
    assert.equal(hits, 2, 'the refused presentation used none of the quota');
  });

  it('migrates stored allowlists without widening any: malformed entries dropped, a key left with none revoked', async () => {
    const keys = {
      mixed: await workspaceWithKey(t.db, { allowedCidrs: ['10.0.0.0/8'] }),
      onlyBad: await workspaceWithKey(t.db, { allowedCidrs: ['10.0.0.0/8'] }),
      hostBits: await workspaceWithKey(t.db, { allowedCidrs: ['10.0.0.0/8'] }),
    };
    // Back to text[] as before the migration, with entries the old parser let in.
    const runner = t.db.createQueryRunner();
    const migration = new Hardening1763800500000();
    try {
      await migration.down(runner);
      const legacy: [string, string[]][] = [
        [keys.mixed.key.id, ['203.0.113.5/', '198.51.100.0/24']],
        [keys.onlyBad.key.id, ['203.0.113.5/', '10.0.0.0/8/32']],
        [keys.hostBits.key.id, ['10.1.2.3/8', '10.1.2.3/8', '2001:db8::1/32']],
      ];
      for (const [id, list] of legacy)
        await runner.query('UPDATE api_keys SET allowed_cidrs = $2 WHERE id = $1', [id, list]);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    const rows = await t.db.query<{ id: string; allowed_cidrs: string[]; revoked: boolean }[]>(
      'SELECT id, allowed_cidrs::text[] AS allowed_cidrs, revoked_at IS NOT NULL AS revoked FROM api_keys WHERE id = ANY($1)',
      [Object.values(keys).map((k) => k.key.id)],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    assert.deepEqual(byId.get(keys.mixed.key.id), {
      id: keys.mixed.key.id,
      allowed_cidrs: ['198.51.100.0/24'],
      revoked: false,
    });
    assert.deepEqual(byId.get(keys.onlyBad.key.id), {
      id: keys.onlyBad.key.id,
      allowed_cidrs: [],
      revoked: true,
    });
    assert.deepEqual(byId.get(keys.hostBits.key.id), {
      id: keys.hostBits.key.id,
      allowed_cidrs: ['10.0.0.0/8', '2001:db8::/32'],
      revoked: false,
    });
    assert.equal((await authenticateKey(t.db, keys.onlyBad.key.key, '8.8.8.8')).ok, false);
    assert.equal((await authenticateKey(t.db, keys.mixed.key.key, '8.8.8.8')).ok, false, 'no /0 any more');
    const [audit] = await t.db.query<{ reason: string }[]>(
      `SELECT reason FROM audit_log WHERE key_id = $1 AND action = 'key.revoke'`,
      [keys.onlyBad.key.id],
    );
    assert.equal(audit!.reason, 'migration: every IP allowlist entry was malformed');
  });
});
