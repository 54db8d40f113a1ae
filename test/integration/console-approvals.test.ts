import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { csrfToken } from '../../api/console/safety';
import { escape } from '../../api/pages/html';
import { createCampaign } from '../../domain/campaigns/operations/create';
import { sendCampaign } from '../../domain/campaigns/operations/send';
import { updateCampaign } from '../../domain/campaigns/operations/update';
import { openSession, passkeyRegistrationOptions, registerPasskey } from '../../domain/identity';
import { authenticateKey } from '../../domain/identity/authenticate';
import { addMember } from '../../domain/identity/operations/member-add';
import { setApprovalPolicy } from '../../domain/identity/operations/workspace-set-approval-policy';
import { unseal } from '../../domain/identity/sealing';
import { keyActor } from '../../domain/kernel/actor';
import { Data } from '../../domain/kernel/data';
import { approvalPage } from '../../domain/kernel/gate';
import type { Services } from '../../domain/kernel/operation';
import { executeOrPark, runOperation } from '../../domain/kernel/runner';
import { createLead } from '../../domain/leads/operations/create';
import { SERVICE_DEFAULTS, testApp } from '../helpers/api';
import { approvalEnvironment } from '../helpers/approval-environment';
import type { TestDatabase } from '../helpers/db';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { intakeBody } from '../helpers/leads';
import { softwareAuthenticator } from '../helpers/software-authenticator';

/** The console's address: the gate's mail links to it, and WebAuthn binds the passkeys to its host. */
const PUBLIC_URL = SERVICE_DEFAULTS.publicUrl;
const ORIGIN = new URL(PUBLIC_URL).origin;
const RP = { id: new URL(PUBLIC_URL).hostname, name: 'Lead console', origin: ORIGIN };
const ALWAYS = { weekdays: [1, 2, 3, 4, 5, 6, 7], start_hour: 0, end_hour: 24 };

type Browser = {
  userId: string;
  email: string;
  cookie: string;
  csrf: string;
  authenticator: ReturnType<typeof softwareAuthenticator>;
};

/**
 * The approvals inbox, a request's page and the decision through the console's routes (supertest),
 * with passkeys made by a software authenticator and the approval gate on Temporal's time-skipping
 * server: who may read and decide, what the page shows, and each way a signed decision is refused with
 * nothing run.
 */
describe('approvals in the console: the inbox, the request page and a decision signed with a passkey', () => {
  let t: TestDatabase;
  let services: Services;
  let stop: () => Promise<void>;
  let app: ReturnType<typeof testApp>;
  let n = 0;

  before(async () => {
    ({ t, services, stop } = await approvalEnvironment('console-approvals'));
    app = testApp(t.db, { config: { publicUrl: PUBLIC_URL }, ports: { approvals: services.approvals } });
  });
  after(async () => {
    await stop?.();
  });

  const userId = async (email: string) =>
    (await t.db.query<{ id: string }[]>(`SELECT id FROM users WHERE email = $1`, [email]))[0]!.id;

  /** A browser signed in as this person with a passkey enrolled (as the enrolment page makes it). */
  async function browserOf(email: string): Promise<Browser> {
    const data = new Data(t.db.manager, undefined);
    const id = await userId(email);
    const authenticator = softwareAuthenticator(ORIGIN);
    const now = new Date();
    const options = await passkeyRegistrationOptions(data, { userId: id, rp: RP }, now);
    const passkey = await registerPasskey(
      data,
      { userId: id, response: authenticator.register(options), rp: RP, name: null },
      now,
    );
    const opened = await openSession(
      data,
      { userId: id, passkeyId: passkey!.passkeyId, ip: null, userAgent: 'test' },
      { idleMinutes: 30, maxHours: 12 },
      now,
    );
    return {
      userId: id,
      email,
      authenticator,
      cookie: `__Host-session=${opened.token}`,
      csrf: csrfToken(SERVICE_DEFAULTS.secretsKey, { session: opened.session.id }),
    };
  }

  /** A workspace whose key may send campaigns, with leads, an admin, an owner, a member and a viewer. */
  async function workspace(leads = 2) {
    const w = await workspaceWithKey(t.db, {
      role: 'admin',
      scopes: ['business:read', 'business:write', 'campaigns:read', 'campaigns:write', 'leads:write'],
    });
    const workspaceId = w.workspace.id;
    const tag = `${++n}.${workspaceId.slice(0, 8)}`;
    const people = {
      admin: `ana.${tag}@example.com`,
      owner: `olga.${tag}@example.com`,
      member: `mo.${tag}@example.com`,
      viewer: `vic.${tag}@example.com`,
    };
    for (const [role, email] of Object.entries(people))
      await asOperator(services, addMember, { email, role }, { workspaceId });
    const auth = await authenticateKey(t.db, w.key.key, undefined);
    if (!auth.ok) throw new Error(auth.reason);
    const key = keyActor(auth.principal, { door: 'mcp', requestId: `req_${tag}` });
    const source = `spring-${tag}`;
    for (let i = 0; i < leads; i++)
      await runOperation(services, createLead, key, {
        ...intakeBody({ source }),
        idempotency_key: randomUUID(),
      });
    const campaign = async (name = `Spring ${tag}`) =>
      (
        (await runOperation(services, createCampaign, key, {
          name,
          channel: 'email',
          audience: { sources: [source] },
          steps: [{ subject: 'Hello {first_name}', body: 'Our spring offer.', delay_hours: 0 }],
          window: ALWAYS,
        })) as { id: string }
      ).id;
    /** Parks a send of a new campaign (or of this one): the request's id, its digest and the campaign. */
    const park = async (campaignId?: string) => {
      const id = campaignId ?? (await campaign());
      const r = await executeOrPark(services, sendCampaign, key, { campaignId: id });
      if (!('parked' in r)) throw new Error('campaign.send ran instead of parking');
      const [row] = await t.db.query<{ digest: string }[]>(
        `SELECT effect->>'digest' AS digest FROM approvals WHERE id = $1`,
        [r.parked.approval_id],
      );
      return { id: r.parked.approval_id, digest: row!.digest, campaignId: id, parked: r.parked };
    };
    return { w, workspaceId, people, key, park, base: `/app/w/${workspaceId}` };
  }

  const approvalRow = async (id: string) =>
    (
      await t.db.query<
        {
          status: string;
          decided_by: string | null;
          decided_via: string | null;
          decided_credential: string | null;
        }[]
      >(`SELECT status, decided_by, decided_via, decided_credential FROM approvals WHERE id = $1`, [id])
    )[0]!;
  const campaignStatus = async (id: string) =>
    (await t.db.query<{ status: string }[]>(`SELECT status FROM campaigns WHERE id = $1`, [id]))[0]!.status;
  /** The newest console request row of this person, with this action when named. */
  const lastConsoleRow = async (actor: string, action?: string) =>
    (
      await t.db.query<
        { action: string; outcome: string; reason: string | null; workspace_id: string | null }[]
      >(
        `SELECT action, outcome, reason, workspace_id FROM audit_log
          WHERE door = 'console' AND actor_user_id = $1 AND ($2::text IS NULL OR action = $2)
          ORDER BY id DESC LIMIT 1`,
        [actor, action ?? null],
      )
    )[0];

  /** A JSON POST of the decision's script, with the session's token and origin unless told otherwise. */
  const post = (
    b: Browser,
    path: string,
    body: Record<string, unknown>,
    opts: { csrf?: string | null; origin?: string } = {},
  ) => {
    const req = request(app)
      .post(path)
      .set('Cookie', b.cookie)
      .set('Origin', opts.origin ?? ORIGIN)
      .set('Content-Type', 'application/json');
    const csrf = opts.csrf === undefined ? b.csrf : opts.csrf;
    return (csrf === null ? req : req.set('X-CSRF-Token', csrf)).send(JSON.stringify(body));
  };

  /** Asks for a decision's challenge and signs it with the browser's passkey: the assertion. */
  const signed = async (b: Browser, base: string, approvalId: string, decision: 'approve' | 'reject') => {
    const res = await post(b, `${base}/approvals/${approvalId}/challenge`, { decision });
    assert.equal(res.status, 200, res.text);
    return b.authenticator.assert(res.body as PublicKeyCredentialRequestOptionsJSON);
  };

  const decide = (
    b: Browser,
    base: string,
    approvalId: string,
    body: { decision: 'approve' | 'reject'; digest: string; response: unknown; reason?: string },
  ) => post(b, `${base}/approvals/${approvalId}/decide`, body);

  it('mails each member who may approve a request once, as it parks, with a link to its page', async () => {
    const s = await workspace();
    const p = await s.park();
    assert.equal(p.parked.approval_url, approvalPage(PUBLIC_URL, s.workspaceId, p.id));
    const mailed = async () =>
      t.db.query<{ user_id: string; sealed: Buffer }[]>(
        `SELECT user_id, sealed FROM member_mail WHERE workspace_id = $1 AND kind = 'approval_waiting' ORDER BY id`,
        [s.workspaceId],
      );
    const rows = await mailed();
    assert.deepEqual(
      rows.map((r) => r.user_id).sort(),
      [await userId(s.w.email), await userId(s.people.admin), await userId(s.people.owner)].sort(),
      'the admins and the owner (the key owner an admin too); not the member, not the viewer',
    );
    const mail = JSON.parse(unseal(rows[0]!.sealed, SERVICE_DEFAULTS.secretsKey)!) as {
      subject: string;
      text: string;
    };
    assert.equal(mail.subject, `Approval needed: ${p.parked.summary}`);
    assert.ok(mail.text.includes(`\n${approvalPage(PUBLIC_URL, s.workspaceId, p.id)}\n`), mail.text);
    assert.match(mail.text, /grants nothing by itself/);

    // The same call again while it waits is the same request: nobody is mailed twice.
    const again = await s.park(p.campaignId);
    assert.equal(again.id, p.id);
    assert.equal((await mailed()).length, 3);

    // Where approving takes a second person, the key's owner (who may not approve) is not asked to.
    await asOperator(services, setApprovalPolicy, { distinct: 'true' }, { workspaceId: s.workspaceId });
    await s.park();
    assert.equal((await mailed()).length, 5);
  });

  it('lists the waiting requests newest first with who asked, for admins and owners; a viewer or a member is refused, audited', async () => {
    const s = await workspace();
    const first = await s.park();
    const second = await s.park();
    const ana = await browserOf(s.people.admin);
    const inbox = await request(app).get(`${s.base}/approvals`).set('Cookie', ana.cookie);
    assert.equal(inbox.status, 200);
    assert.equal(inbox.headers['cache-control'], 'no-store');
    const main = /<main[^>]*>([\s\S]*)<\/main>/.exec(inbox.text)![1]!;
    const [i1, i2] = [main.indexOf(`/approvals/${second.id}"`), main.indexOf(`/approvals/${first.id}"`)];
    assert.ok(i1 > 0 && i2 > i1, 'both listed, the newest first');
    assert.match(main, /Waiting for a decision \(2\)/);
    assert.ok(main.includes(s.w.key.prefix), "the asking key's prefix");
    assert.ok(main.includes(s.w.email), "and its owner's address");
    assert.match(main, /Send the email campaign/);
    assert.match(
      inbox.text,
      /<a href="[^"]+\/approvals" aria-current="page">Approvals<\/a>/,
      'a tab of its own',
    );

    for (const who of [s.people.viewer, s.people.member]) {
      const b = await browserOf(who);
      const overview = await request(app).get(s.base).set('Cookie', b.cookie);
      assert.doesNotMatch(overview.text, /\/approvals"/, `${who}: no Approvals tab`);
      for (const path of [`${s.base}/approvals`, `${s.base}/approvals/${first.id}`]) {
        const res = await request(app).get(path).set('Cookie', b.cookie);
        assert.equal(res.status, 403, `${who} ${path}`);
        assert.match(res.text, /<h1>Not allowed<\/h1>/);
        assert.ok(!res.text.includes(escape(first.parked.summary)), 'nothing of the request shows');
        const row = await lastConsoleRow(b.userId);
        assert.deepEqual([row?.outcome, row?.workspace_id], ['refused', s.workspaceId], path);
        assert.match(row?.reason ?? '', /^role (viewer|member) is below admin$/, path);
      }
      const challenge = await post(b, `${s.base}/approvals/${first.id}/challenge`, { decision: 'approve' });
      assert.equal(challenge.status, 403);
      assert.deepEqual(challenge.body, { error: 'Not allowed' });
    }
    assert.equal((await approvalRow(first.id)).status, 'PENDING');
  });

  it('shows the request as approval show does; approving with a passkey runs it once, recording the member and the credential', async () => {
    const s = await workspace(3);
    const p = await s.park();
    const ana = await browserOf(s.people.admin);
    const page = await request(app).get(`${s.base}/approvals/${p.id}`).set('Cookie', ana.cookie);
    assert.equal(page.status, 200);
    const main = /<main[^>]*>([\s\S]*)<\/main>/.exec(page.text)![1]!;
    assert.ok(main.includes(escape(p.parked.summary)));
    assert.match(main, /What it does, as it stood when asked/);
    assert.match(main, /Hello \{first_name\}/, 'the text as written, placeholders kept');
    assert.match(main, /Whom it reaches/);
    assert.match(main, /audience: 3 people/);
    assert.match(main, /still valid/);
    assert.ok(main.includes(`sha256:${p.digest}`));
    assert.ok(main.includes(`data-digest="${p.digest}"`));
    assert.match(main, /data-decision="approve"/);
    assert.match(main, /data-decision="reject"/);
    assert.match(main, /Deciding needs your passkey/, 'said where the script cannot run');
    assert.match(page.text, /<script src="\/app\/assets\/decide\.js\?v=[0-9a-f]+" defer><\/script>/);
    assert.doesNotMatch(page.text, /<script>|style="/, 'nothing inline');

    const response = await signed(ana, s.base, p.id, 'approve');
    const done = await decide(ana, s.base, p.id, {
      decision: 'approve',
      digest: p.digest,
      response,
      reason: 'Spring is here.',
    });
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(done.body, { status: 'EXECUTED', redirect: `${s.base}/approvals/${p.id}` });
    assert.notEqual(await campaignStatus(p.campaignId), 'DRAFT', 'the campaign was sent');
    assert.deepEqual(await approvalRow(p.id), {
      status: 'EXECUTED',
      decided_by: ana.userId,
      decided_via: 'passkey',
      decided_credential: ana.authenticator.credentialId,
    });
    const [audit] = await t.db.query<
      { door: string; actor_user_id: string; details: Record<string, unknown> }[]
    >(
      `SELECT door, actor_user_id, details FROM audit_log WHERE action = 'approval.approve' AND details->>'approval_id' = $1`,
      [p.id],
    );
    assert.deepEqual(
      [audit?.door, audit?.actor_user_id, audit?.details.credential_id, audit?.details.digest],
      ['console', ana.userId, ana.authenticator.credentialId, p.digest],
    );
    const row = await lastConsoleRow(ana.userId, 'console.approval.decide');
    assert.equal(row?.outcome, 'allowed');

    const decided = await request(app).get(`${s.base}/approvals/${p.id}`).set('Cookie', ana.cookie);
    const shown = /<main[^>]*>([\s\S]*)<\/main>/.exec(decided.text)![1]!;
    assert.match(shown, /Approved, and done\./);
    assert.ok(shown.includes(s.people.admin), 'who decided');
    assert.ok(shown.includes(ana.authenticator.credentialId), 'with which passkey');
    assert.match(shown, /The signed assertion/);
    assert.match(shown, /Spring is here\./);
    assert.doesNotMatch(shown, /data-decision=/, 'no buttons once decided');
    assert.doesNotMatch(decided.text, /decide\.js/);
  });

  it('refuses an assertion made for another request, one replayed for a second request, and one for the other decision; nothing runs', async () => {
    const s = await workspace();
    const a = await s.park();
    const b = await s.park();
    const ana = await browserOf(s.people.admin);
    const forA = await signed(ana, s.base, a.id, 'approve');

    for (const digest of [a.digest, b.digest]) {
      const other = await decide(ana, s.base, b.id, { decision: 'approve', digest, response: forA });
      assert.equal(other.status, 403, 'an assertion for another request');
      assert.deepEqual(other.body, { error: 'Not allowed' });
      const row = await lastConsoleRow(ana.userId, 'console.approval.decide');
      assert.equal(row?.outcome, 'refused');
      assert.match(row?.reason ?? '', /not a fresh one of this member for this request/);
    }
    const flipped = await decide(ana, s.base, a.id, { decision: 'reject', digest: a.digest, response: forA });
    assert.equal(flipped.status, 403, 'signed to approve, it cannot reject');
    assert.equal((await approvalRow(a.id)).status, 'PENDING');

    // The refusals used nothing up: it decides the request it was made for, once.
    const done = await decide(ana, s.base, a.id, { decision: 'approve', digest: a.digest, response: forA });
    assert.equal(done.status, 200, done.text);
    assert.equal((done.body as { status: string }).status, 'EXECUTED');

    // Replayed, for the second request or the first again: refused.
    const replayed = await decide(ana, s.base, b.id, {
      decision: 'approve',
      digest: b.digest,
      response: forA,
    });
    assert.equal(replayed.status, 403);
    const twice = await decide(ana, s.base, a.id, { decision: 'approve', digest: a.digest, response: forA });
    assert.equal(twice.status, 403);
    assert.equal((await approvalRow(b.id)).status, 'PENDING', 'the second request still waits');
    assert.equal(await campaignStatus(b.campaignId), 'DRAFT', 'and its campaign was not sent');
    const approvals = await t.db.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM audit_log WHERE action = 'approval.approve' AND details->>'approval_id' = $1`,
      [b.id],
    );
    assert.equal(
      approvals[0]!.n,
      0,
      'no decision on it was even recorded as refused: it never reached the request',
    );
  });

  it('says a campaign changed after its request parked; approving it ends FAILED and nothing is sent', async () => {
    const s = await workspace();
    const p = await s.park();
    await runOperation(services, updateCampaign, s.key, {
      campaignId: p.campaignId,
      steps: [{ subject: 'Rewritten {first_name}', body: 'Not what was asked.', delay_hours: 0 }],
    });
    const ana = await browserOf(s.people.admin);
    const page = await request(app).get(`${s.base}/approvals/${p.id}`).set('Cookie', ana.cookie);
    assert.match(page.text, /Changed since it was asked:<\/strong> steps\./);
    assert.match(page.text, /Hello \{first_name\}/, 'the page shows what was asked, not the rewrite');

    const response = await signed(ana, s.base, p.id, 'approve');
    const done = await decide(ana, s.base, p.id, { decision: 'approve', digest: p.digest, response });
    assert.equal(done.status, 200, done.text);
    assert.equal((done.body as { status: string }).status, 'FAILED');
    assert.equal(await campaignStatus(p.campaignId), 'DRAFT', 'nothing ran');
    const after = await request(app).get(`${s.base}/approvals/${p.id}`).set('Cookie', ana.cookie);
    assert.match(
      after.text,
      /Approved, but it did not run:<\/strong> changed since approval was requested: steps/,
    );
  });

  it('enforces the CSRF token and the Origin on the challenge and the decision; nothing is asked or decided', async () => {
    const s = await workspace();
    const p = await s.park();
    const ana = await browserOf(s.people.admin);
    const challenges = async () =>
      (
        await t.db.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM webauthn_challenges WHERE purpose = 'decision' AND user_id = $1`,
          [ana.userId],
        )
      )[0]!.n;
    const wrong = csrfToken(SERVICE_DEFAULTS.secretsKey, { session: randomUUID() });
    const cases: [string, { csrf?: string | null; origin?: string }, RegExp][] = [
      ['no token', { csrf: null }, /without a CSRF token/],
      ['a wrong token', { csrf: wrong }, /wrong CSRF token/],
      ['another origin', { origin: 'https://evil.example' }, /another origin/],
    ];
    for (const [label, opts, reason] of cases) {
      const res = await post(ana, `${s.base}/approvals/${p.id}/challenge`, { decision: 'approve' }, opts);
      assert.equal(res.status, 403, `challenge: ${label}`);
      assert.deepEqual(res.body, { error: 'Not allowed' });
      assert.match((await lastConsoleRow(ana.userId))?.reason ?? '', reason, label);
    }
    assert.equal(await challenges(), 0, 'no challenge was made');

    const response = await signed(ana, s.base, p.id, 'approve');
    for (const [label, opts, reason] of cases) {
      const res = await post(
        ana,
        `${s.base}/approvals/${p.id}/decide`,
        { decision: 'approve', digest: p.digest, response },
        opts,
      );
      assert.equal(res.status, 403, `decide: ${label}`);
      assert.match((await lastConsoleRow(ana.userId))?.reason ?? '', reason, label);
    }
    assert.equal((await approvalRow(p.id)).status, 'PENDING', 'nothing was decided');
    assert.equal(await campaignStatus(p.campaignId), 'DRAFT');
  });
});
