import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { csrfToken } from '../../api/console/safety';
import { openSession } from '../../domain/identity';
import { liveSession } from '../../domain/identity/sessions';
import { addMember } from '../../domain/identity/operations/member-add';
import { removeMember } from '../../domain/identity/operations/member-remove';
import { Data } from '../../domain/kernel/data';
import { SERVICE_DEFAULTS, testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, bearer, workspaceWithKey } from '../helpers/fixtures';

const PUBLIC_URL = 'http://localhost:3999';
const ORIGIN = PUBLIC_URL;
const SETTINGS = { idleMinutes: 30, maxHours: 12 };
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

type AuditRow = {
  door: string;
  action: string;
  outcome: string;
  reason: string | null;
  actor_user_id: string | null;
  workspace_id: string | null;
};

/**
 * The console's door as a browser meets it, through supertest: its headers on every answer, the
 * Origin and CSRF checks on every POST, a workspace's pages confined to its live members and their
 * roles. Each refusal is "Not allowed" or "Not found", changes nothing, and is audited with its reason.
 */
describe('the console door', () => {
  let t: TestDatabase;
  let app: ReturnType<typeof testApp>;
  let a: Awaited<ReturnType<typeof workspaceWithKey>>;
  let b: Awaited<ReturnType<typeof workspaceWithKey>>;

  before(async () => {
    t = await freshDatabase();
    app = testApp(t.db, { config: { publicUrl: PUBLIC_URL } });
    a = await workspaceWithKey(t.db, { role: 'admin' });
    b = await workspaceWithKey(t.db, { role: 'admin' });
  });
  after(() => t.drop());

  const userId = async (email: string) =>
    (await t.db.query<{ id: string }[]>(`SELECT id FROM users WHERE email = $1`, [email]))[0]!.id;

  /** A browser signed in as this person: its cookie and its CSRF token. */
  const browserOf = async (email: string) => {
    const opened = await openSession(
      new Data(t.db.manager, undefined),
      { userId: await userId(email), passkeyId: null, ip: null, userAgent: 'test' },
      SETTINGS,
      new Date(),
    );
    return {
      sessionId: opened.session.id,
      cookie: `__Host-session=${opened.token}`,
      csrf: csrfToken(SERVICE_DEFAULTS.secretsKey, { session: opened.session.id }),
    };
  };

  const keysOf = async (workspaceId: string) =>
    (
      await t.db.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM api_keys WHERE workspace_id = $1`, [
        workspaceId,
      ])
    )[0]!.n;

  /** The audit row of the last console request with this action, or the last console row at all. */
  const lastAudit = async (where = 'true', params: unknown[] = []) =>
    (
      await t.db.query<AuditRow[]>(
        `SELECT door, action, outcome, reason, actor_user_id, workspace_id FROM audit_log
          WHERE door = 'console' AND ${where} ORDER BY id DESC LIMIT 1`,
        params,
      )
    )[0];

  const keyForm = (csrf?: string) => ({
    ...(csrf !== undefined && { _csrf: csrf }),
    name: 'CRM sync',
    scopes: 'business:read',
    expiresInDays: '30',
  });

  it('answers every page with the console policy, no-store and the other page headers', async () => {
    const res = await request(app).get('/app/sign-in');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-security-policy'], CSP);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(
      res.headers['referrer-policy'],
      'same-origin',
      "a POST's Origin is sent, nothing to other sites",
    );
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.doesNotMatch(res.text, /<script>|<style>|style="/, 'nothing inline');
    const cookie = String(res.headers['set-cookie']);
    assert.match(cookie, /^__Host-signin=[A-Za-z0-9_-]{43}; Path=\/; Secure; HttpOnly; SameSite=Lax$/);
    for (const path of [
      '/app/assets/console.css',
      '/app/assets/console.js',
      '/app/assets/webauthn.js',
      '/app/nope',
    ]) {
      const r = await request(app).get(path);
      assert.equal(r.headers['cache-control'], 'no-store', path);
      assert.equal(r.headers['content-security-policy'], CSP, path);
    }
    const missing = await request(app).get('/app/nope');
    assert.equal(missing.status, 404);
    assert.match(missing.text, /<h1>Not found<\/h1>/);
    const signedOut = await request(app).get(`/app/w/${a.workspace.id}/keys`);
    assert.equal(signedOut.status, 303);
    assert.equal(signedOut.headers.location, '/app/sign-in');
  });

  it('refuses a POST without the CSRF token, with a wrong one, or from another origin; nothing changes and each is audited', async () => {
    const browser = await browserOf(a.email);
    const path = `/app/w/${a.workspace.id}/keys`;
    const before = await keysOf(a.workspace.id);
    const cases: [string, Record<string, string>, Record<string, string>, RegExp][] = [
      ['no token', { Origin: ORIGIN }, keyForm(), /without a CSRF token/],
      [
        'a wrong token',
        { Origin: ORIGIN },
        keyForm(csrfToken(SERVICE_DEFAULTS.secretsKey, { session: randomUUID() })),
        /wrong CSRF token/,
      ],
      [
        'another origin',
        { Origin: 'https://evil.example' },
        keyForm(browser.csrf),
        /another origin: https:\/\/evil\.example/,
      ],
      ['no origin', {}, keyForm(browser.csrf), /without an Origin/],
    ];
    for (const [label, headers, form, reason] of cases) {
      const res = await request(app)
        .post(path)
        .set('Cookie', browser.cookie)
        .set(headers)
        .type('form')
        .send(form);
      assert.equal(res.status, 403, label);
      assert.match(res.text, /<h1>Not allowed<\/h1>/, label);
      const main = /<main[^>]*>([\s\S]*)<\/main>/.exec(res.text)![1]!;
      assert.doesNotMatch(main, /CSRF|origin|token/i, `${label}: the page says no more than "Not allowed"`);
      const row = await lastAudit();
      assert.equal(row?.outcome, 'refused', label);
      assert.match(row?.reason ?? '', reason, label);
      assert.equal(row?.actor_user_id, await userId(a.email), label);
    }
    assert.equal(await keysOf(a.workspace.id), before, 'no key was made');
    // The same form with its token and origin is done.
    const done = await request(app)
      .post(path)
      .set('Cookie', browser.cookie)
      .set('Origin', ORIGIN)
      .type('form')
      .send(keyForm(browser.csrf));
    assert.equal(done.status, 200);
    assert.equal(await keysOf(a.workspace.id), before + 1);
  });

  it('shows a new key on the answer to its form only: a GET of the same address lists it without the key', async () => {
    const browser = await browserOf(a.email);
    const path = `/app/w/${a.workspace.id}/keys`;
    const created = await request(app)
      .post(path)
      .set('Cookie', browser.cookie)
      .set('Origin', ORIGIN)
      .type('form')
      .send({ ...keyForm(browser.csrf), name: 'Shown once' });
    const key = /id="new-key" class="secret">([^<]+)</.exec(created.text)?.[1];
    assert.ok(key, 'the key is on the answer');
    const me = await request(app).get('/api/v1/me').set(bearer(key));
    assert.equal(me.status, 200, 'the key works on REST');
    const again = await request(app).get(path).set('Cookie', browser.cookie);
    assert.equal(again.status, 200);
    assert.match(again.text, /Shown once/);
    assert.ok(!again.text.includes(key), 'the list never shows the key');
    const row = await lastAudit(`action = 'key.create'`);
    assert.equal(row?.outcome, 'allowed');
    assert.equal(row?.actor_user_id, await userId(a.email), "the operation's row names the member");
  });

  it("answers another workspace's pages as missing ones, for reading and for changing; nothing changes", async () => {
    const browser = await browserOf(a.email);
    const theirs = await request(app).get(`/app/w/${b.workspace.id}/keys`).set('Cookie', browser.cookie);
    const nowhere = await request(app).get(`/app/w/${randomUUID()}/keys`).set('Cookie', browser.cookie);
    assert.equal(theirs.status, 404);
    assert.equal(nowhere.status, 404);
    assert.equal(theirs.text, nowhere.text, "another's workspace looks like none");
    const row = await lastAudit(`reason LIKE $1`, [`%${b.workspace.id}%`]);
    assert.match(row?.reason ?? '', /not a member of workspace/);
    const revoke = await request(app)
      .post(`/app/w/${b.workspace.id}/keys/${b.key.id}/revoke`)
      .set('Cookie', browser.cookie)
      .set('Origin', ORIGIN)
      .type('form')
      .send({ _csrf: browser.csrf });
    assert.equal(revoke.status, 404);
    const [key] = await t.db.query<{ revoked_at: Date | null }[]>(
      `SELECT revoked_at FROM api_keys WHERE id = $1`,
      [b.key.id],
    );
    assert.equal(key!.revoked_at, null, "B's key stands");
    // Revoking B's key from A's pages finds no such key either.
    const sideways = await request(app)
      .post(`/app/w/${a.workspace.id}/keys/${b.key.id}/revoke`)
      .set('Cookie', browser.cookie)
      .set('Origin', ORIGIN)
      .type('form')
      .send({ _csrf: browser.csrf });
    assert.equal(sideways.status, 404);
    assert.equal((await request(app).get('/api/v1/me').set(bearer(b.key.key))).status, 200);
  });

  it('refuses a viewer the settings pages and their forms, audited', async () => {
    await asOperator(
      t.db,
      addMember,
      { email: 'viewer@example.com', role: 'viewer' },
      { workspaceId: a.workspace.id },
    );
    const browser = await browserOf('viewer@example.com');
    const overview = await request(app).get(`/app/w/${a.workspace.id}`).set('Cookie', browser.cookie);
    assert.equal(overview.status, 200, 'a viewer sees the workspace');
    assert.doesNotMatch(overview.text, /\/keys"/, 'but no settings tab');
    for (const page of ['keys', 'endpoints', 'audit', 'members']) {
      const res = await request(app).get(`/app/w/${a.workspace.id}/${page}`).set('Cookie', browser.cookie);
      assert.equal(res.status, 403, page);
      assert.match(res.text, /<h1>Not allowed<\/h1>/);
    }
    const row = await lastAudit();
    assert.equal(row?.reason, 'role viewer is below admin');
    assert.equal(row?.workspace_id, a.workspace.id);
    const before = await keysOf(a.workspace.id);
    const post = await request(app)
      .post(`/app/w/${a.workspace.id}/keys`)
      .set('Cookie', browser.cookie)
      .set('Origin', ORIGIN)
      .type('form')
      .send(keyForm(browser.csrf));
    assert.equal(post.status, 403);
    assert.equal(await keysOf(a.workspace.id), before);
  });

  it("refuses a removed member's session at once", async () => {
    await asOperator(
      t.db,
      addMember,
      { email: 'leaver@example.com', role: 'admin' },
      { workspaceId: a.workspace.id },
    );
    const browser = await browserOf('leaver@example.com');
    assert.equal(
      (await request(app).get(`/app/w/${a.workspace.id}/keys`).set('Cookie', browser.cookie)).status,
      200,
    );
    await asOperator(t.db, removeMember, { email: 'leaver@example.com' }, { workspaceId: a.workspace.id });
    const res = await request(app).get(`/app/w/${a.workspace.id}/keys`).set('Cookie', browser.cookie);
    assert.notEqual(res.status, 200);
    assert.doesNotMatch(res.text, /CRM sync/);
    const before = await keysOf(a.workspace.id);
    const post = await request(app)
      .post(`/app/w/${a.workspace.id}/keys`)
      .set('Cookie', browser.cookie)
      .set('Origin', ORIGIN)
      .type('form')
      .send(keyForm(browser.csrf));
    assert.ok(post.status === 403 || post.status === 404, `refused (${post.status})`);
    assert.equal(await keysOf(a.workspace.id), before);
  });

  it("runs the members' forms as the admin's own operations, with a refusal beside its field", async () => {
    const browser = await browserOf(a.email);
    const post = (path: string, form: Record<string, string>) =>
      request(app)
        .post(`/app/w/${a.workspace.id}/members${path}`)
        .set('Cookie', browser.cookie)
        .set('Origin', ORIGIN)
        .type('form')
        .send({ _csrf: browser.csrf, ...form });
    const bad = await post('', { email: 'not an address', role: 'member' });
    assert.equal(bad.status, 422);
    assert.match(
      bad.text,
      /<input type="email" id="email"[^>]*aria-describedby="email-error" aria-invalid="true">/,
    );
    assert.match(bad.text, /<p class="error" id="email-error">email must be an email address<\/p>/);
    const invited = await post('', { email: 'newcomer@example.com', role: 'viewer' });
    assert.equal(invited.status, 303);
    assert.equal(invited.headers.location, `/app/w/${a.workspace.id}/members?done=added`);
    const newcomer = await browserOf('newcomer@example.com');
    assert.equal((await post('/role', { email: 'newcomer@example.com', role: 'admin' })).status, 303);
    assert.equal((await post('/role', { email: 'newcomer@example.com', role: 'member' })).status, 303);
    // A lower role ends the person's sessions at once.
    const demoted = await request(app).get(`/app/w/${a.workspace.id}`).set('Cookie', newcomer.cookie);
    assert.equal(demoted.status, 303);
    assert.equal((await post('/remove', { email: 'newcomer@example.com' })).status, 303);
    const rows = await t.db.query<{ action: string; actor_user_id: string }[]>(
      `SELECT action, actor_user_id FROM audit_log
        WHERE door = 'console' AND action IN ('member.invite', 'member.set_role', 'member.remove') ORDER BY id`,
    );
    assert.deepEqual(
      rows.map((r) => r.action),
      ['member.invite', 'member.set_role', 'member.set_role', 'member.remove'],
    );
    assert.ok(rows.every((r) => r.actor_user_id === rows[0]!.actor_user_id));
    assert.equal(rows[0]!.actor_user_id, await userId(a.email));
  });

  it('signs out: the session ends, the cookie is cleared, and it is audited', async () => {
    const browser = await browserOf(a.email);
    const res = await request(app)
      .post('/app/sign-out')
      .set('Cookie', browser.cookie)
      .set('Origin', ORIGIN)
      .type('form')
      .send({ _csrf: browser.csrf });
    assert.equal(res.status, 303);
    assert.equal(res.headers.location, '/app/sign-in');
    assert.match(
      String(res.headers['set-cookie']),
      /__Host-session=; Path=\/; Secure; HttpOnly; SameSite=Lax; Max-Age=0/,
    );
    const token = browser.cookie.split('=')[1]!;
    assert.equal(await liveSession(new Data(t.db.manager, undefined), token, SETTINGS, new Date()), null);
    const row = await lastAudit(`action = 'console.sign_out'`);
    assert.equal(row?.outcome, 'allowed');
    assert.equal(row?.actor_user_id, await userId(a.email));
    assert.equal((await request(app).get('/app/me').set('Cookie', browser.cookie)).status, 303);
  });

  it('asks for a sign-in link with the same answer for a member and a stranger; a bad link or passkey is refused, audited', async () => {
    const page = await request(app).get('/app/sign-in');
    const binding = /__Host-signin=([^;]+)/.exec(String(page.headers['set-cookie']))![1]!;
    const csrf = csrfToken(SERVICE_DEFAULTS.secretsKey, { signin: binding });
    const ask = (email: string) =>
      request(app)
        .post('/app/sign-in')
        .set('Cookie', `__Host-signin=${binding}`)
        .set('Origin', ORIGIN)
        .type('form')
        .send({ _csrf: csrf, email });
    const known = await ask(a.email);
    const stranger = await ask('nobody@example.com');
    assert.equal(known.status, 200);
    assert.equal(known.text, stranger.text);
    assert.match(known.text, /If that address belongs to a member, a sign-in link is on its way/);
    assert.equal((await lastAudit(`action = 'console.sign_in.request'`))?.outcome, 'refused');

    const link = await request(app)
      .post(`/app/sign-in/link/${'x'.repeat(43)}`)
      .set('Cookie', `__Host-signin=${binding}`)
      .set('Origin', ORIGIN)
      .type('form')
      .send({ _csrf: csrf });
    assert.equal(link.status, 404);
    assert.match(link.text, /This link is not valid/);
    assert.equal((await lastAudit(`action = 'console.sign_in.link'`))?.outcome, 'refused');

    const passkey = await request(app)
      .post('/app/sign-in/passkey')
      .set('Cookie', `__Host-signin=${binding}`)
      .set('Origin', ORIGIN)
      .set('X-CSRF-Token', csrf)
      .send({ response: { id: 'nope', response: {} } });
    assert.equal(passkey.status, 403);
    assert.deepEqual(passkey.body, { error: 'Not allowed' });
    assert.equal(
      (await lastAudit(`action = 'console.sign_in.passkey'`))?.reason,
      'passkey sign-in did not verify',
    );
  });
});
