import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { parseArgv } from '../../admin/args';
import { addMember } from '../../domain/identity/operations/member-add';
import { removeMember } from '../../domain/identity/operations/member-remove';
import { memberSessions } from '../../domain/identity/operations/member-sessions';
import { setMemberRole } from '../../domain/identity/operations/member-set-role';
import {
  endSession,
  liveSession,
  openSession,
  presentedSession,
  sessionsOf,
  type SessionSettings,
} from '../../domain/identity/sessions';
import { redeemSignInLink, requestSignInLink } from '../../domain/identity/sign-in-links';
import { Data } from '../../domain/kernel/data';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';

const MINUTE = 60_000;
const SETTINGS: SessionSettings = { idleMinutes: 30, maxHours: 12 };
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest();
const later = (at: Date, ms: number) => new Date(at.getTime() + ms);
/** A browser's `__Host-signin` cookie. */
const browser = () => randomBytes(32).toString('base64url');

describe('console sessions: stored by fingerprint, idle and absolute limits, ended at once', () => {
  let t: TestDatabase;
  let data: Data;
  before(async () => {
    t = await freshDatabase();
    data = new Data(t.db.manager, undefined);
  });
  after(() => t?.drop());

  /** A member of a new workspace, and their user id. */
  async function member(role: 'admin' | 'member' = 'member') {
    const w = await workspaceWithKey(t.db, { role });
    const [user] = await t.db.query<{ id: string }[]>(`SELECT id FROM users WHERE email = $1`, [w.email]);
    return { w, userId: user!.id, workspaceId: w.workspace.id };
  }

  const open = (userId: string, now: Date) =>
    openSession(
      data,
      { userId, passkeyId: null, ip: '::ffff:203.0.113.9', userAgent: 'Test/1.0' },
      SETTINGS,
      now,
    );

  it('opens a session whose secret is stored only as its SHA-256, and knows it by that secret', async () => {
    const { w, userId } = await member();
    const now = new Date();
    const { token, session } = await open(userId, now);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(session.userId, userId);
    assert.equal(session.email, w.email);
    assert.equal(session.expiresAt.getTime(), now.getTime() + 12 * 60 * MINUTE);
    const [row] = await t.db.query(`SELECT * FROM console_sessions WHERE id = $1`, [session.id]);
    assert.deepEqual(row.token_fingerprint, sha256(token));
    assert.ok(!JSON.stringify(row).includes(token), 'the secret itself is stored nowhere');
    assert.equal(row.ip, '203.0.113.9');
    assert.deepEqual(await liveSession(data, token, SETTINGS, later(now, MINUTE)), session);
    assert.equal(await liveSession(data, browser(), SETTINGS, now), null, 'an unknown secret');
    assert.equal(await liveSession(data, 'not a token', SETTINGS, now), null, 'anything else');
  });

  it('is marked seen at most once a minute', async () => {
    const { userId } = await member();
    const now = new Date();
    const { token, session } = await open(userId, now);
    const seen = async () =>
      (
        (await t.db.query(`SELECT last_seen_at FROM console_sessions WHERE id = $1`, [session.id]))[0]
          .last_seen_at as Date
      ).getTime();
    await liveSession(data, token, SETTINGS, later(now, 30_000));
    assert.equal(await seen(), now.getTime(), 'not touched within the minute');
    await liveSession(data, token, SETTINGS, later(now, 90_000));
    assert.equal(await seen(), now.getTime() + 90_000);
  });

  it('ends after 30 idle minutes, and after 12 hours however active', async () => {
    const { userId } = await member();
    const now = new Date();
    const idle = await open(userId, now);
    assert.ok(await liveSession(data, idle.token, SETTINGS, later(now, 29 * MINUTE)));
    assert.equal(await liveSession(data, idle.token, SETTINGS, later(now, 60 * MINUTE)), null);
    // Seen at 29 minutes: idle counts from there, so 58 minutes is still live...
    assert.ok(await liveSession(data, idle.token, SETTINGS, later(now, 58 * MINUTE)));

    const busy = await open(userId, now);
    let at = now;
    for (let i = 0; i < 12 * 3 - 1; i++) {
      at = later(at, 20 * MINUTE);
      assert.ok(await liveSession(data, busy.token, SETTINGS, at), `live at ${(i + 1) * 20} minutes`);
    }
    assert.equal(
      await liveSession(data, busy.token, SETTINGS, later(now, 12 * 60 * MINUTE)),
      null,
      'over at 12 hours, however recently seen',
    );
  });

  it('a lowered absolute limit ends sessions older than it at their next request', async () => {
    const { userId } = await member();
    const now = new Date();
    const { token } = await open(userId, now);
    const at = later(now, 2 * 60 * MINUTE);
    assert.ok(await liveSession(data, token, { idleMinutes: 600, maxHours: 12 }, at));
    assert.equal(await liveSession(data, token, { idleMinutes: 600, maxHours: 1 }, at), null);
  });

  it('says why a cookie signs nobody in: unknown, idle, expired, or how it ended', async () => {
    const { w, userId, workspaceId } = await member();
    const now = new Date();
    const why = async (token: string, at: Date, settings = SETTINGS) => {
      const p = await presentedSession(data, token, settings, at);
      return 'session' in p ? 'live' : p.over;
    };
    const s = await open(userId, now);
    assert.equal(await why(s.token, now), 'live');
    assert.equal(await why(browser(), now), 'unknown');
    assert.equal(await why('not a token', now), 'unknown');
    assert.equal(await why(s.token, later(now, 31 * MINUTE)), 'idle');
    assert.equal(await why(s.token, later(now, 12 * 60 * MINUTE)), 'expired');
    assert.equal(
      await why(s.token, later(now, 2 * 60 * MINUTE), { idleMinutes: 600, maxHours: 1 }),
      'expired',
    );
    const out = await open(userId, now);
    await endSession(data, out.session.id, 'signed_out');
    assert.equal(await why(out.token, now), 'signed_out');
    await asOperator(t.db, removeMember, { email: w.email }, { workspaceId });
    assert.equal(
      await why(s.token, later(now, 31 * MINUTE)),
      'removed',
      'how it ended comes before a timeout',
    );
  });

  it('signing out ends the session for good; ending it again, or naming no session, changes nothing', async () => {
    const { userId } = await member();
    const now = new Date();
    const { token, session } = await open(userId, now);
    await endSession(data, session.id, 'signed_out');
    assert.equal(await liveSession(data, token, SETTINGS, now), null);
    await endSession(data, session.id, 'revoked');
    await endSession(data, 'not-a-uuid', 'revoked');
    const [view] = await sessionsOf(data, userId);
    assert.equal(view!.id, session.id);
    assert.equal(view!.endedReason, 'signed_out', 'the first ending stands');
    assert.ok(view!.endedAt);
  });

  it("removing a member ends every session of theirs in the removal's transaction", async () => {
    const { w, userId, workspaceId } = await member();
    const now = new Date();
    const a = await open(userId, now);
    const b = await open(userId, now);
    await asOperator(t.db, removeMember, { email: w.email }, { workspaceId });
    assert.equal(await liveSession(data, a.token, SETTINGS, now), null);
    assert.equal(await liveSession(data, b.token, SETTINGS, now), null);
    assert.deepEqual(
      (await sessionsOf(data, userId)).map((s) => s.endedReason),
      ['removed', 'removed'],
    );
    const [audit] = await t.db.query(
      `SELECT details FROM audit_log WHERE action = 'member.remove' AND workspace_id = $1`,
      [workspaceId],
    );
    assert.equal(audit.details.sessions_ended, 2);
  });

  it('a demotion ends them; a promotion or the same role does not', async () => {
    const { w, userId, workspaceId } = await member('admin');
    const now = new Date();
    const s = await open(userId, now);
    await asOperator(t.db, setMemberRole, { email: w.email, role: 'owner' }, { workspaceId });
    await asOperator(t.db, setMemberRole, { email: w.email, role: 'owner' }, { workspaceId });
    assert.ok(await liveSession(data, s.token, SETTINGS, now), 'promoted: still signed in');
    await asOperator(t.db, setMemberRole, { email: w.email, role: 'viewer' }, { workspaceId });
    assert.equal(await liveSession(data, s.token, SETTINGS, now), null, 'demoted: signed out');
    assert.equal((await sessionsOf(data, userId))[0]!.endedReason, 'demoted');
  });

  it("member sessions lists a member's sessions, and --revoke ends them all", async () => {
    const { w, userId, workspaceId } = await member();
    const now = new Date();
    const a = await open(userId, now);
    await open(userId, now);
    const listed = await asOperator(t.db, memberSessions, { email: w.email }, { workspaceId });
    assert.equal(listed.sessions.length, 2);
    assert.equal(listed.revoked, undefined);
    assert.ok(listed.sessions.every((s) => s.ended_at === null && s.user_agent === 'Test/1.0'));
    assert.ok(!JSON.stringify(listed).includes(a.token));

    const parsed = parseArgv([
      'member',
      'sessions',
      '--workspace',
      workspaceId,
      '--email',
      w.email,
      '--revoke',
    ]);
    assert.ok('command' in parsed);
    assert.equal(parsed.command.operation.name, 'member.sessions');
    const input = parsed.command.binding.flags!(parsed.flags);
    const revoked = await asOperator(t.db, memberSessions, input, { workspaceId });
    assert.equal(revoked.revoked, 2);
    assert.ok(revoked.sessions.every((s) => s.ended_reason === 'revoked'));
    assert.equal(await liveSession(data, a.token, SETTINGS, now), null);
    const again = await asOperator(t.db, memberSessions, { ...input }, { workspaceId });
    assert.equal(again.revoked, 0, 'nothing left to end');
  });
});

describe('sign-in links: one use, 15 minutes, the browser that asked, rate-limited', () => {
  let t: TestDatabase;
  let data: Data;
  before(async () => {
    t = await freshDatabase();
    data = new Data(t.db.manager, undefined);
  });
  after(() => t?.drop());

  /** A member's address (unique per test, so each starts with its own count). */
  async function memberAddress() {
    const w = await workspaceWithKey(t.db);
    const email = `signin.${randomUUID().slice(0, 8)}@example.com`;
    await asOperator(t.db, addMember, { email, role: 'member' }, { workspaceId: w.workspace.id });
    return { email, workspaceId: w.workspace.id };
  }
  /** A client address nobody else uses. */
  const ip = () => `198.51.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

  async function link(email: string, binding: string, now: Date) {
    const r = await requestSignInLink(data, { email, browserBinding: binding, ip: ip() }, now);
    assert.ok('token' in r, `a link for ${email}: ${JSON.stringify(r)}`);
    return r;
  }

  it('makes a link for a member, stored by fingerprint and bound to the browser that asked', async () => {
    const { email } = await memberAddress();
    const binding = browser();
    const now = new Date();
    const { token, userId } = await link(` ${email.toUpperCase()} `, binding, now);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    const [row] = await t.db.query(`SELECT * FROM sign_in_links WHERE user_id = $1`, [userId]);
    assert.deepEqual(row.token_fingerprint, sha256(token));
    assert.deepEqual(row.browser_fingerprint, sha256(binding));
    assert.equal(row.expires_at.getTime() - now.getTime(), 15 * MINUTE);
    assert.ok(!JSON.stringify(row).includes(token));
  });

  it('refuses an address that is no member, keeping only a fingerprint of it', async () => {
    const email = `nobody.${randomUUID().slice(0, 8)}@example.com`;
    const r = await requestSignInLink(data, { email, browserBinding: browser(), ip: ip() }, new Date());
    assert.deepEqual(r, { refused: 'unknown' });
    const rows = await t.db.query(`SELECT * FROM sign_in_requests WHERE address_fingerprint = $1`, [
      sha256(`sign-in:${email}`),
    ]);
    assert.equal(rows.length, 1, 'counted');
    const everything = JSON.stringify(await t.db.query(`SELECT * FROM sign_in_requests`));
    assert.ok(!everything.includes(email), 'no address is stored');
  });

  it('is used once: a second redeem, or one after 15 minutes, gets nothing', async () => {
    const { email } = await memberAddress();
    const binding = browser();
    const now = new Date();
    const { token, userId } = await link(email, binding, now);
    assert.deepEqual(await redeemSignInLink(data, { token, browserBinding: binding }, later(now, MINUTE)), {
      userId,
    });
    assert.deepEqual(await redeemSignInLink(data, { token, browserBinding: binding }, later(now, MINUTE)), {
      refused: 'used',
    });

    const late = await link(email, binding, now);
    assert.deepEqual(
      await redeemSignInLink(data, { token: late.token, browserBinding: binding }, later(now, 15 * MINUTE)),
      { refused: 'expired' },
      'at 15 minutes it is over',
    );
    assert.ok(
      await redeemSignInLink(
        data,
        { token: late.token, browserBinding: binding },
        later(now, 15 * MINUTE - 1),
      ),
      'just before, it works',
    );
  });

  it('of ten redeems racing, exactly one gets the user', async () => {
    const { email } = await memberAddress();
    const binding = browser();
    const now = new Date();
    const { token } = await link(email, binding, now);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => redeemSignInLink(data, { token, browserBinding: binding }, now)),
    );
    assert.equal(answers.filter((a) => 'userId' in a).length, 1);
    assert.ok(answers.every((a) => 'userId' in a || a.refused === 'used'));
  });

  it('another browser gets nothing, and leaves the link to the browser that asked', async () => {
    const { email } = await memberAddress();
    const binding = browser();
    const now = new Date();
    const { token, userId } = await link(email, binding, now);
    assert.deepEqual(await redeemSignInLink(data, { token, browserBinding: browser() }, now), {
      refused: 'another_browser',
    });
    assert.deepEqual(await redeemSignInLink(data, { token, browserBinding: 'no cookie' }, now), {
      refused: 'another_browser',
    });
    assert.deepEqual(
      await redeemSignInLink(data, { token: browser(), browserBinding: binding }, now),
      { refused: 'unknown' },
      'a token no link has',
    );
    assert.deepEqual(await redeemSignInLink(data, { token, browserBinding: binding }, now), { userId });
  });

  it('a link of a member removed meanwhile gets nothing', async () => {
    const { email, workspaceId } = await memberAddress();
    const binding = browser();
    const { token } = await link(email, binding, new Date());
    await asOperator(t.db, removeMember, { email }, { workspaceId });
    assert.deepEqual(await redeemSignInLink(data, { token, browserBinding: binding }, new Date()), {
      refused: 'not_a_member',
    });
  });

  it('allows 5 requests per address in 15 minutes, known or not, and 100 a minute get 5 links', async () => {
    const { email } = await memberAddress();
    const now = new Date();
    const answers = [];
    for (let i = 0; i < 100; i++)
      answers.push(
        await requestSignInLink(data, { email, browserBinding: browser(), ip: ip() }, later(now, i * 500)),
      );
    assert.equal(answers.filter((a) => 'token' in a).length, 5);
    assert.ok(answers.slice(5).every((a) => 'refused' in a && a.refused === 'too_many'));
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM sign_in_links l JOIN users u ON u.id = l.user_id WHERE u.email = $1`,
      [email],
    );
    assert.equal(n, 5, 'no link beyond the limit');
    // The window slides: 15 minutes after the first, one more.
    const next = await requestSignInLink(
      data,
      { email, browserBinding: browser(), ip: ip() },
      later(now, 15 * MINUTE + 1),
    );
    assert.ok('token' in next);

    const unknown = `nobody.${randomUUID().slice(0, 8)}@example.com`;
    const refused = [];
    for (let i = 0; i < 6; i++)
      refused.push(
        await requestSignInLink(data, { email: unknown, browserBinding: browser(), ip: ip() }, now),
      );
    assert.deepEqual(
      refused.map((r) => ('refused' in r ? r.refused : 'token')),
      ['unknown', 'unknown', 'unknown', 'unknown', 'unknown', 'too_many'],
      'an unknown address meets the same limit: the answers tell nothing apart',
    );
  });

  it('counts requests arriving together one after another', async () => {
    const { email } = await memberAddress();
    const now = new Date();
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        requestSignInLink(data, { email, browserBinding: browser(), ip: ip() }, now),
      ),
    );
    assert.equal(answers.filter((a) => 'token' in a).length, 5);
  });

  it('allows 20 requests per client address in 15 minutes, whatever the addresses asked for', async () => {
    const client = ip();
    const now = new Date();
    const answers = [];
    for (let i = 0; i < 21; i++) {
      const email = `spray.${i}.${randomUUID().slice(0, 8)}@example.com`;
      answers.push(await requestSignInLink(data, { email, browserBinding: browser(), ip: client }, now));
    }
    assert.equal(answers.filter((a) => 'refused' in a && a.refused === 'too_many').length, 1);
    assert.deepEqual(answers.at(-1), { refused: 'too_many' });
    const { email } = await memberAddress();
    assert.deepEqual(
      await requestSignInLink(data, { email, browserBinding: browser(), ip: client }, now),
      { refused: 'too_many' },
      "a member's address from that client too",
    );
    assert.ok(
      'token' in (await requestSignInLink(data, { email, browserBinding: browser(), ip: ip() }, now)),
    );
  });

  it('refuses a request from a browser without a binding', async () => {
    await assert.rejects(
      requestSignInLink(data, { email: 'a@example.com', browserBinding: '', ip: null }, new Date()),
      /no sign-in binding/,
    );
  });
});
