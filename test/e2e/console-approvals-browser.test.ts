import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { showApproval } from '../../domain/approvals/operations/show';
import { approvalText } from '../../domain/approvals/show';
import { addMember } from '../../domain/identity/operations/member-add';
import { approvalGate } from '../../infra/temporal/approvals';
import { waitFor } from '../../tooling/processes';
import { startSmtpSink } from '../../tooling/smtp-sink';
import { testApp } from '../helpers/api';
import { consoleBrowser, consoleServer } from '../helpers/console-browser';
import { workspaceWithKey } from '../helpers/fixtures';
import { intakeBody, postLead } from '../helpers/leads';
import { mcpClient, structured } from '../helpers/mcp';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

const APPROVER = 'ana@acme.example';
const ALWAYS = { weekdays: [1, 2, 3, 4, 5, 6, 7], start_hour: 0, end_hour: 24 };

/**
 * An assistant's gated call, decided by a person in the console, in a real Chromium with a virtual
 * authenticator, against the real API, worker, Temporal, PostgreSQL and an SMTP sink: an MCP client
 * parks `campaign.send`; the approver gets the "approval needed" mail; signs in (a link, then a
 * passkey); opens the request from the mail's link; approves it with a passkey assertion; the
 * campaign's mail reaches the sink; the audit log, `approval.get` and `approval show` name the member
 * and the credential. The inbox and the request page pass axe-core and fit a 390px phone.
 */
describe('an approval decided in the console with a passkey, in a real browser', () => {
  let s: WebhookStack;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let server: Awaited<ReturnType<typeof consoleServer>>;
  let b: Awaited<ReturnType<typeof consoleBrowser>>;

  before(async () => {
    server = await consoleServer();
    smtp = await startSmtpSink();
    s = await startWebhookStack({
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'news@acme.example', PUBLIC_URL: server.publicUrl },
    });
    server.serve(
      testApp(s.db, {
        config: { publicUrl: server.publicUrl },
        ports: {
          // The parked answer's page and the deciders' mail link to this console, as in production.
          publicUrl: server.publicUrl,
          approvals: approvalGate(
            s.db,
            () => Promise.resolve(s.client),
            s.config.temporalTaskQueue,
            s.config,
          ),
        },
      }),
    );
    b = await consoleBrowser();
  });
  after(async () => {
    await b?.close();
    await server?.close();
    await s?.stop();
    await smtp?.stop();
  });

  it('parks campaign.send from an MCP client; the approver is mailed, signs in, approves with a passkey; the campaign goes out', async () => {
    const { page, text, click, ceremony, check } = b;
    const w = await workspaceWithKey(s.db, {
      role: 'admin',
      scopes: ['campaigns:read', 'campaigns:write', 'leads:read', 'leads:write', 'business:read'],
    });
    const workspaceId = w.workspace.id;
    await s.run(addMember, { email: APPROVER, role: 'admin' }, { workspaceId });
    const app = testApp(s.db, { config: { publicUrl: server.publicUrl } });
    const source = `spring-${workspaceId.slice(0, 8)}`;
    const leads: string[] = [];
    for (let i = 0; i < 2; i++) {
      const body = intakeBody({ source });
      assert.equal((await postLead(app, w.key.key, body)).status, 201);
      leads.push(body.email);
    }

    // The assistant asks; nothing is sent; the answer carries the request's page.
    const mcp = await mcpClient(server.loopbackUrl, w.key.key, { protocolVersion: '2025-11-25' });
    const created = await mcp.call('campaign.create', {
      name: 'Spring hello',
      channel: 'email',
      audience: { sources: [source] },
      steps: [
        { subject: 'Spring for {first_name}', body: 'Hello {first_name}, our spring offer.', delay_hours: 0 },
      ],
      window: ALWAYS,
    });
    const campaignId = structured<{ id: string }>(created).id;
    const parked = structured<{ status: string; approval_id: string; approval_url: string; summary: string }>(
      await mcp.call('campaign.send', { campaignId }),
    );
    assert.equal(parked.status, 'pending_approval');
    const pageUrl = `${server.publicUrl}/app/w/${workspaceId}/approvals/${parked.approval_id}`;
    assert.equal(parked.approval_url, pageUrl);

    // The approver's mail, through the member mail workflow on the worker, at the SMTP sink.
    const waiting = await waitFor(
      'the approval mail at the SMTP sink',
      async () =>
        smtp.received.find(
          (r) => r.to.includes(APPROVER) && r.mail.subject === `Approval needed: ${parked.summary}`,
        ),
      30_000,
      100,
    );
    const link = /https?:\/\/\S+\/app\/w\/[0-9a-f-]+\/approvals\/[0-9a-f-]+/.exec(
      waiting.mail.text ?? '',
    )?.[0];
    assert.equal(link, pageUrl, `the request's page in: ${waiting.mail.text}`);

    // The link grants nothing by itself: signed out, it asks to sign in.
    await page.goto(link);
    assert.equal(new URL(page.url()).pathname, '/app/sign-in');
    await page.type('#email', APPROVER);
    await click('form[action="/app/sign-in"] button[type=submit]');
    const signInMail = await waitFor(
      'the sign-in mail at the SMTP sink',
      async () =>
        smtp.received.find((r) => r.to.includes(APPROVER) && r.mail.subject === 'Your sign-in link'),
      30_000,
      100,
    );
    const signInLink = /https?:\/\/\S+\/app\/sign-in\/link\/[A-Za-z0-9_-]+/.exec(
      signInMail.mail.text ?? '',
    )?.[0];
    assert.ok(signInLink, `a link in: ${signInMail.mail.text}`);
    await page.goto(signInLink);
    await click('main form button[type=submit]');
    await page.waitForSelector('form[data-passkey-enrol]:not([hidden])');
    await ceremony('form[data-passkey-enrol] button[type=submit]');
    assert.equal(new URL(page.url()).pathname, `/app/w/${workspaceId}`);
    const [credential] = await b.credentials();
    assert.ok(credential, 'a passkey on the authenticator');

    // The inbox, from the workspace's tab.
    await click('nav.tabs a[href$="/approvals"]');
    assert.match(await text('main'), /Waiting for a decision \(1\)/);
    assert.ok((await text('main table')).includes(parked.summary));
    assert.ok((await text('main table')).includes(w.key.prefix), 'who asked: the key');
    await check('approvals-inbox');

    // The request, opened from the mail's link.
    await page.goto(link);
    assert.equal(await text('h1'), parked.summary);
    assert.match(await text('main'), /What it does, as it stood when asked/);
    assert.match(await text('main'), /Spring for \{first_name\}/);
    assert.match(await text('main'), /audience: 2 people/);
    await page.waitForSelector('[data-decide]:not([hidden]) button[data-decision=approve]');
    assert.equal(
      await b.inPage<boolean>(`document.querySelector('[data-without-webauthn]').hidden`),
      true,
      'the no-passkey note is hidden',
    );
    await check('approval-request');
    await page.type('#reason', 'Spring is here.');
    await ceremony('button[data-decision=approve]');
    assert.equal(page.url(), pageUrl);
    const decided = await text('main');
    assert.match(decided, /Approved, and done\./);
    assert.ok(decided.includes(APPROVER), 'who decided');
    assert.ok(decided.includes(credential.id), 'with which passkey');
    await check('approval-decided');

    // The campaign's mail, to its two leads, at the sink.
    const sent = await waitFor(
      "the campaign's mail at the SMTP sink",
      async () => {
        const got = smtp.received.filter(
          (r) => r.mail.subject === 'Spring for Ana' && leads.some((e) => r.to.includes(e)),
        );
        return got.length === leads.length ? got : undefined;
      },
      30_000,
      100,
    );
    assert.deepEqual(sent.flatMap((r) => r.to).sort(), [...leads].sort());

    // The record: the audit row of the decision, approval.get for the assistant, approval show for the operator.
    const [approver] = await s.db.query<{ id: string }[]>(`SELECT id FROM users WHERE email = $1`, [
      APPROVER,
    ]);
    const [audit] = await s.db.query<
      { door: string; actor_user_id: string; details: Record<string, unknown> }[]
    >(
      `SELECT door, actor_user_id, details FROM audit_log WHERE action = 'approval.approve' AND details->>'approval_id' = $1`,
      [parked.approval_id],
    );
    assert.deepEqual(
      [audit?.door, audit?.actor_user_id, audit?.details.decided_via, audit?.details.credential_id],
      ['console', approver!.id, 'passkey', credential.id],
    );
    const got = structured<{
      status: string;
      decided_by: string;
      decided_via: string;
      decided_credential: string;
    }>(await mcp.call('approval.get', { approvalId: parked.approval_id }));
    assert.deepEqual(
      [got.status, got.decided_by, got.decided_via, got.decided_credential],
      ['EXECUTED', approver!.id, 'passkey', credential.id],
    );
    const shown = await s.run(showApproval, { id: parked.approval_id });
    assert.match(
      approvalText(shown),
      new RegExp(
        `Approved by member ${approver!.id} at \\S+, with their passkey \\(credential ${credential.id}\\)`,
      ),
    );
    assert.deepEqual(b.violations, [], 'no page needed anything its policy forbids');
    await s.client.workflow
      .getHandle(`campaign:${campaignId}`)
      .terminate('test over')
      .catch(() => undefined);
    await mcp.client.close();
  });
});
