import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operations } from '../../domain/oauth';
import { loadSigningKeys } from '../../domain/oauth/signing-keys';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator } from '../helpers/fixtures';
import { SERVICE_DEFAULTS } from '../helpers/api';
import { testServices } from '../../tooling/services';

const SECRETS_KEY = SERVICE_DEFAULTS.secretsKey;

/**
 * The authorization server's signing keys: made once by the first process that starts (two starting
 * together make one), stored sealed (the table holds no private key a reader could use), rotated by the
 * operator with the retired key still published, and refused at start under another SECRETS_KEY.
 */
describe("the authorization server's signing keys", () => {
  let t: TestDatabase;
  before(async () => {
    t = await freshDatabase();
  });
  after(() => t.drop());

  it('are made once, sealed, rotated with the old one still published, and refused under another secret', async () => {
    const [a, b] = await Promise.all([
      loadSigningKeys(t.db, SECRETS_KEY),
      loadSigningKeys(t.db, SECRETS_KEY),
    ]);
    assert.equal(a.length, 1);
    assert.deepEqual(a, b, 'two processes starting together share one key');
    const first = a[0]!;
    assert.equal(first.alg, 'ES256');
    assert.ok(first.d, 'the provider gets the private key');

    const rows = await t.db.query<{ kid: string; sealed: Buffer }[]>(
      `SELECT kid, sealed FROM oauth_signing_keys`,
    );
    assert.equal(rows.length, 1);
    const stored = rows[0]!.sealed.toString('latin1');
    assert.ok(!stored.includes(first.d), 'the private key is not stored in the clear');
    assert.ok(!stored.includes('"kty"'), 'nor is the JWK');

    const rotated = (await asOperator(t.db, operations.rotateSigningKey, {})) as {
      live: string;
      keys: { kid: string; retired_at: string | null }[];
    };
    assert.notEqual(rotated.live, first.kid);
    const after = await loadSigningKeys(t.db, SECRETS_KEY);
    assert.deepEqual(
      after.map((k) => k.kid),
      [rotated.live, first.kid],
      'the new key signs; the retired one is still published',
    );
    const listed = (await asOperator(t.db, operations.listOauthKeys, {})) as {
      live: string;
      keys: { kid: string; retired_at: string | null }[];
    };
    assert.equal(listed.live, rotated.live);
    assert.ok(listed.keys.find((k) => k.kid === first.kid)?.retired_at, 'the old key is retired');
    assert.ok(JSON.stringify(listed).indexOf(after[0]!.d!) === -1, 'the list shows no key');

    // SECRETS_KEY changed without a rotation: the start is refused, naming the remedy.
    const another = Buffer.alloc(32, 9);
    await assert.rejects(
      loadSigningKeys(t.db, another),
      /does not open with SECRETS_KEY: rotate the keys \(npm run -s admin -- oauth rotate-key\)/,
    );
    // After the rotation under the new secret, the keys sealed under the old one are only dropped.
    await asOperator(testServices(t.db, { secretsKey: another }), operations.rotateSigningKey, {});
    const renewed = await loadSigningKeys(t.db, another);
    assert.equal(renewed.length, 1, 'the new live key alone: the old ones do not open');
  });
});
