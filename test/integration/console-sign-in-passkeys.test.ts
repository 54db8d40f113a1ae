import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { removeMember } from '../../domain/identity/operations/member-remove';
import {
  decisionChallenge,
  passkeyRegistrationOptions,
  passkeySignInOptions,
  passkeysOf,
  registerPasskey,
  signInWithPasskey,
  verifyDecisionAssertion,
  type RelyingParty,
} from '../../domain/identity/passkeys';
import { liveSession, openSession } from '../../domain/identity/sessions';
import { Data } from '../../domain/kernel/data';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { softwareAuthenticator } from '../helpers/software-authenticator';

const RP: RelyingParty = { id: 'localhost', name: 'Lead service', origin: 'http://localhost:3000' };
const MINUTE = 60_000;
const later = (at: Date, ms: number) => new Date(at.getTime() + ms);
const browser = () => randomBytes(32).toString('base64url');

describe('the WebAuthn library as installed', () => {
  it('reads ES256 signatures with the same ASN.1 schema registry its EC schemas are declared in', () => {
    // @simplewebauthn/server parses an ES256 signature with @peculiar/asn1-schema's parser and
    // @peculiar/asn1-ecc's ECDSASigValue, which is registered in the copy asn1-ecc resolves: two copies
    // of asn1-schema (another package pinning an older one at the root) refuse every ES256 passkey.
    const server = createRequire(require.resolve('@simplewebauthn/server'));
    const ecc = createRequire(server.resolve('@peculiar/asn1-ecc'));
    assert.equal(
      server.resolve('@peculiar/asn1-schema'),
      ecc.resolve('@peculiar/asn1-schema'),
      'two copies of @peculiar/asn1-schema: dedupe it (package.json overrides) so there is one',
    );
  });
});

describe('passkeys: enrolment and sign-in verified for real with a software authenticator', () => {
  let t: TestDatabase;
  let data: Data;
  before(async () => {
    t = await freshDatabase();
    data = new Data(t.db.manager, undefined);
  });
  after(() => t?.drop());

  async function member() {
    const w = await workspaceWithKey(t.db);
    const [user] = await t.db.query<{ id: string }[]>(`SELECT id FROM users WHERE email = $1`, [w.email]);
    return { userId: user!.id, email: w.email, workspaceId: w.workspace.id };
  }

  /** A member with an enrolled passkey, and the authenticator holding it. */
  async function enrolled(opts: { synced?: boolean; counter?: number } = {}) {
    const m = await member();
    const authenticator = softwareAuthenticator(RP.origin, opts);
    const now = new Date();
    const options = await passkeyRegistrationOptions(data, { userId: m.userId, rp: RP }, now);
    const registered = await registerPasskey(
      data,
      { userId: m.userId, response: authenticator.register(options), rp: RP, name: 'Laptop' },
      now,
    );
    assert.ok(registered, 'enrolled');
    return { ...m, authenticator, passkeyId: registered.passkeyId };
  }

  const signIn = async (authenticator: ReturnType<typeof softwareAuthenticator>, binding = browser()) => {
    const now = new Date();
    const options = await passkeySignInOptions(data, { browserBinding: binding, rp: RP }, now);
    return { options, binding, now, response: authenticator.assert(options) };
  };

  it('asks for a discoverable credential with user verification, then stores the one the authenticator made', async () => {
    const m = await member();
    const authenticator = softwareAuthenticator(RP.origin, { synced: true });
    const now = new Date();
    const options = await passkeyRegistrationOptions(data, { userId: m.userId, rp: RP }, now);
    assert.equal(options.rp.id, 'localhost');
    assert.equal(options.user.name, m.email);
    assert.deepEqual(options.authenticatorSelection, {
      residentKey: 'required',
      requireResidentKey: true,
      userVerification: 'required',
    });
    assert.equal(options.attestation, 'none');
    const registered = await registerPasskey(
      data,
      { userId: m.userId, response: authenticator.register(options), rp: RP, name: '  Phone ' },
      now,
    );
    assert.ok(registered);
    const [view] = await passkeysOf(data, m.userId);
    assert.equal(view!.id, registered.passkeyId);
    assert.equal(view!.name, 'Phone');
    assert.equal(view!.deviceType, 'multiDevice');
    assert.equal(view!.backedUp, true);
    assert.deepEqual(view!.transports, ['internal']);
    const [row] = await t.db.query(`SELECT credential_id, sign_count FROM passkeys WHERE id = $1`, [
      registered.passkeyId,
    ]);
    assert.equal(row.credential_id, authenticator.credentialId);

    const again = await passkeyRegistrationOptions(data, { userId: m.userId, rp: RP }, now);
    assert.deepEqual(
      again.excludeCredentials?.map((c) => c.id),
      [authenticator.credentialId],
      'the same authenticator is not enrolled twice',
    );
  });

  it('refuses an enrolment without user verification, from another origin or RP, replayed, late, or for another user', async () => {
    const m = await member();
    const other = await member();
    const now = new Date();
    const attempt = async (
      quirks: Parameters<ReturnType<typeof softwareAuthenticator>['register']>[1],
      opts: { userId?: string; at?: Date } = {},
    ) => {
      const options = await passkeyRegistrationOptions(data, { userId: m.userId, rp: RP }, now);
      const response = softwareAuthenticator(RP.origin).register(options, quirks);
      return registerPasskey(
        data,
        { userId: opts.userId ?? m.userId, response, rp: RP, name: null },
        opts.at ?? now,
      );
    };
    assert.equal(await attempt({ verifyUser: false }), null, 'user not verified');
    assert.equal(await attempt({ origin: 'http://evil.example' }), null, 'another origin');
    assert.equal(await attempt({ rpId: 'evil.example' }), null, 'another RP ID');
    assert.equal(await attempt({}, { userId: other.userId }), null, "another user's challenge");
    assert.equal(await attempt({}, { at: later(now, 5 * MINUTE) }), null, 'after five minutes');
    assert.deepEqual(await passkeysOf(data, m.userId), []);

    const options = await passkeyRegistrationOptions(data, { userId: m.userId, rp: RP }, now);
    const response = softwareAuthenticator(RP.origin).register(options);
    assert.ok(await registerPasskey(data, { userId: m.userId, response, rp: RP, name: null }, now));
    assert.equal(
      await registerPasskey(data, { userId: m.userId, response, rp: RP, name: null }, now),
      null,
      'a challenge answers once',
    );
    assert.equal((await passkeysOf(data, m.userId))[0]!.name, 'Passkey');
    assert.equal(
      await registerPasskey(data, { userId: m.userId, response: {}, rp: RP, name: null }, now),
      null,
    );
  });

  it('signs in with no address asked: the passkey names its member, and the counter is kept', async () => {
    const m = await enrolled();
    const { binding, now, response, options } = await signIn(m.authenticator);
    assert.deepEqual(options.allowCredentials ?? [], [], 'discoverable: no credential named');
    assert.equal(options.userVerification, 'required');
    const signedIn = await signInWithPasskey(data, { browserBinding: binding, response, rp: RP }, now);
    assert.deepEqual(signedIn, { userId: m.userId, passkeyId: m.passkeyId });
    const [row] = await t.db.query(`SELECT sign_count, last_used_at FROM passkeys WHERE id = $1`, [
      m.passkeyId,
    ]);
    assert.equal(row.sign_count, '2');
    assert.equal(row.last_used_at.getTime(), now.getTime());

    const { token, session } = await openSession(
      data,
      { userId: signedIn.userId, passkeyId: signedIn.passkeyId, ip: null, userAgent: null },
      { idleMinutes: 30, maxHours: 12 },
      now,
    );
    assert.equal((await liveSession(data, token, { idleMinutes: 30, maxHours: 12 }, now))?.id, session.id);
  });

  it('refuses a replayed assertion, one from another browser, one not user-verified, one from another origin', async () => {
    const m = await enrolled();
    const first = await signIn(m.authenticator);
    assert.ok(
      await signInWithPasskey(
        data,
        { browserBinding: first.binding, response: first.response, rp: RP },
        first.now,
      ),
    );
    assert.equal(
      await signInWithPasskey(
        data,
        { browserBinding: first.binding, response: first.response, rp: RP },
        first.now,
      ),
      null,
      'replayed',
    );
    const second = await signIn(m.authenticator);
    assert.equal(
      await signInWithPasskey(
        data,
        { browserBinding: browser(), response: second.response, rp: RP },
        second.now,
      ),
      null,
      "another browser's challenge",
    );
    for (const quirks of [
      { verifyUser: false },
      { origin: 'http://evil.example' },
      { rpId: 'evil.example' },
    ]) {
      const options = await passkeySignInOptions(
        data,
        { browserBinding: second.binding, rp: RP },
        second.now,
      );
      const response = m.authenticator.assert(options, quirks);
      assert.equal(
        await signInWithPasskey(data, { browserBinding: second.binding, response, rp: RP }, second.now),
        null,
        JSON.stringify(quirks),
      );
    }
    const late = await signIn(m.authenticator);
    assert.equal(
      await signInWithPasskey(
        data,
        { browserBinding: late.binding, response: late.response, rp: RP },
        later(late.now, 5 * MINUTE),
      ),
      null,
      'after five minutes',
    );
  });

  it('refuses a counter that went back, and accepts an authenticator that keeps none', async () => {
    const m = await enrolled({ counter: 5 });
    const up = await signIn(m.authenticator);
    assert.ok(
      await signInWithPasskey(data, { browserBinding: up.binding, response: up.response, rp: RP }, up.now),
    );
    const options = await passkeySignInOptions(data, { browserBinding: up.binding, rp: RP }, up.now);
    const back = m.authenticator.assert(options, { counter: 3 });
    assert.equal(
      await signInWithPasskey(data, { browserBinding: up.binding, response: back, rp: RP }, up.now),
      null,
    );

    const synced = await enrolled({ synced: true, counter: 0 });
    for (let i = 0; i < 2; i++) {
      const s = await signIn(synced.authenticator);
      assert.ok(
        await signInWithPasskey(data, { browserBinding: s.binding, response: s.response, rp: RP }, s.now),
        `counter 0, use ${i + 1}`,
      );
    }
  });

  it('refuses a passkey whose member was removed from every workspace, or that nobody enrolled', async () => {
    const m = await enrolled();
    await asOperator(t.db, removeMember, { email: m.email }, { workspaceId: m.workspaceId });
    const s = await signIn(m.authenticator);
    assert.equal(
      await signInWithPasskey(data, { browserBinding: s.binding, response: s.response, rp: RP }, s.now),
      null,
    );
    const stranger = softwareAuthenticator(RP.origin);
    const t2 = await signIn(stranger);
    assert.equal(
      await signInWithPasskey(data, { browserBinding: t2.binding, response: t2.response, rp: RP }, t2.now),
      null,
    );
  });
});

describe("a decision's assertion is bound to its approval, the digest approved and the decision", () => {
  let t: TestDatabase;
  let data: Data;
  before(async () => {
    t = await freshDatabase();
    data = new Data(t.db.manager, undefined);
  });
  after(() => t?.drop());

  async function approver() {
    const w = await workspaceWithKey(t.db);
    const [user] = await t.db.query<{ id: string }[]>(`SELECT id FROM users WHERE email = $1`, [w.email]);
    const userId = user!.id;
    const authenticator = softwareAuthenticator(RP.origin);
    const now = new Date();
    const options = await passkeyRegistrationOptions(data, { userId, rp: RP }, now);
    const registered = await registerPasskey(
      data,
      { userId, response: authenticator.register(options), rp: RP, name: null },
      now,
    );
    const { session } = await openSession(
      data,
      { userId, passkeyId: registered!.passkeyId, ip: null, userAgent: null },
      { idleMinutes: 30, maxHours: 12 },
      now,
    );
    return { userId, authenticator, passkeyId: registered!.passkeyId, sessionId: session.id };
  }

  const digest = () => createHash('sha256').update(randomUUID()).digest('hex');

  it('derives the challenge from a nonce, the approval, the digest and the decision, and verifies the assertion over it', async () => {
    const a = await approver();
    const approvalId = randomUUID();
    const d = digest();
    const now = new Date();
    const options = await decisionChallenge(
      data,
      { userId: a.userId, sessionId: a.sessionId, approvalId, digest: d, decision: 'approve' },
      RP,
      now,
    );
    assert.deepEqual(
      options.allowCredentials?.map((c) => c.id),
      [a.authenticator.credentialId],
    );
    assert.equal(options.userVerification, 'required');
    const [row] = await t.db.query(`SELECT * FROM webauthn_challenges WHERE challenge = $1`, [
      options.challenge,
    ]);
    assert.equal(row.purpose, 'decision');
    assert.equal(row.approval_id, approvalId);
    assert.equal(row.digest, d);
    assert.equal(row.session_id, a.sessionId);
    const expected = createHash('sha256')
      .update(row.nonce)
      .update(approvalId)
      .update(d)
      .update('approve')
      .digest('base64url');
    assert.equal(options.challenge, expected);

    const response = a.authenticator.assert(options);
    const verified = await verifyDecisionAssertion(
      data,
      {
        userId: a.userId,
        approvalId,
        digest: d,
        decision: 'approve',
        response: { ...response, extra: 'dropped' },
        rp: RP,
      },
      now,
    );
    assert.ok(verified);
    assert.equal(verified.credentialId, a.authenticator.credentialId);
    assert.equal(verified.passkeyId, a.passkeyId);
    assert.deepEqual(verified.assertion, {
      id: response.id,
      rawId: response.rawId,
      response: response.response,
      type: 'public-key',
    });
    assert.equal(
      await verifyDecisionAssertion(
        data,
        { userId: a.userId, approvalId, digest: d, decision: 'approve', response, rp: RP },
        now,
      ),
      null,
      'replayed',
    );
  });

  it('refuses the assertion for another request, another digest, the other decision, another member, or late', async () => {
    const a = await approver();
    const b = await approver();
    const approvalId = randomUUID();
    const d = digest();
    const now = new Date();
    const ask = () =>
      decisionChallenge(
        data,
        { userId: a.userId, sessionId: null, approvalId, digest: d, decision: 'approve' },
        RP,
        now,
      );
    const response = a.authenticator.assert(await ask());

    const otherApproval = randomUUID();
    // Another request's challenge exists too: the assertion still names this one's.
    await decisionChallenge(
      data,
      { userId: a.userId, sessionId: null, approvalId: otherApproval, digest: d, decision: 'approve' },
      RP,
      now,
    );
    assert.equal(
      await verifyDecisionAssertion(
        data,
        { userId: a.userId, approvalId: otherApproval, digest: d, decision: 'approve', response, rp: RP },
        now,
      ),
      null,
      'another request',
    );
    assert.equal(
      await verifyDecisionAssertion(
        data,
        { userId: a.userId, approvalId, digest: digest(), decision: 'approve', response, rp: RP },
        now,
      ),
      null,
      'the campaign changed: another digest',
    );
    assert.equal(
      await verifyDecisionAssertion(
        data,
        { userId: a.userId, approvalId, digest: d, decision: 'reject', response, rp: RP },
        now,
      ),
      null,
      'signed to approve: it cannot reject',
    );
    assert.equal(
      await verifyDecisionAssertion(
        data,
        { userId: b.userId, approvalId, digest: d, decision: 'approve', response, rp: RP },
        now,
      ),
      null,
      "another member's session",
    );
    // The refusals above used nothing up: the right request, digest and member still verify.
    assert.ok(
      await verifyDecisionAssertion(
        data,
        { userId: a.userId, approvalId, digest: d, decision: 'approve', response, rp: RP },
        now,
      ),
    );

    const bOnA = b.authenticator.assert(await ask());
    assert.equal(
      await verifyDecisionAssertion(
        data,
        { userId: a.userId, approvalId, digest: d, decision: 'approve', response: bOnA, rp: RP },
        now,
      ),
      null,
      "another member's passkey on this member's challenge",
    );
    const late = a.authenticator.assert(await ask());
    assert.equal(
      await verifyDecisionAssertion(
        data,
        { userId: a.userId, approvalId, digest: d, decision: 'approve', response: late, rp: RP },
        later(now, 5 * MINUTE),
      ),
      null,
      'after five minutes',
    );
    const signInOptions = await passkeySignInOptions(data, { browserBinding: browser(), rp: RP }, now);
    assert.equal(
      await verifyDecisionAssertion(
        data,
        {
          userId: a.userId,
          approvalId,
          digest: d,
          decision: 'approve',
          response: a.authenticator.assert(signInOptions),
          rp: RP,
        },
        now,
      ),
      null,
      "a sign-in's assertion decides nothing",
    );
  });
});
