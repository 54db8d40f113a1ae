import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import request from 'supertest';
import { waitFor } from '../../tooling/processes';
import { startSmtpSink } from '../../tooling/smtp-sink';
import { runAdminAsync } from '../helpers/admin';
import { testApp } from '../helpers/api';
import { consoleBrowser, consoleServer } from '../helpers/console-browser';
import { bearer } from '../helpers/fixtures';
import { startReceiver } from '../helpers/receiver';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

const ADMIN = 'ana@acme.example';

/**
 * The console as an invited admin meets it, in a real Chromium with a virtual authenticator, against
 * the real API, worker, Temporal and PostgreSQL: the operator's `member invite` at the admin CLI, the
 * invitation from the real SMTP sink opening the sign-in page with the address filled in, a sign-in
 * link asked for from this browser and read from the sink, a passkey enrolled,
 * signing out and in again with it, a key made (shown once) that works on REST, an endpoint added and
 * tested, the loopback receiver getting `endpoint.test`, and the delivery log showing it. Every page is
 * checked with axe-core (nothing serious or critical) and must fit a 390px phone.
 */
describe('the console in a real browser', () => {
  let s: WebhookStack;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let server: Awaited<ReturnType<typeof consoleServer>>;
  let b: Awaited<ReturnType<typeof consoleBrowser>>;
  let page: Page;
  let publicUrl: string;
  let app: ReturnType<typeof testApp>;

  before(async () => {
    // WebAuthn takes a domain as its relying party, never an address: the console is http://localhost.
    server = await consoleServer();
    publicUrl = server.publicUrl;
    smtp = await startSmtpSink();
    receiver = await startReceiver();
    s = await startWebhookStack({
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'console@acme.example', PUBLIC_URL: publicUrl },
    });
    // The stack's own app, with the endpoints' ports that allow a loopback receiver.
    app = testApp(s.db, { config: { publicUrl }, ports: { webhooks: s.endpointDeps } });
    server.serve(app);
    b = await consoleBrowser();
    page = b.page;
  });
  after(async () => {
    await b?.close();
    await server?.close();
    await receiver?.close();
    await smtp?.stop();
    await s?.stop();
  });

  // The shared browser's helpers (test/helpers/console-browser.ts), once `before` has made it.
  const inPage = <T>(expression: string) => b.inPage<T>(expression);
  const text = (selector: string) => b.text(selector);
  const click = (selector: string) => b.click(selector);
  /** Axe-core finds nothing serious or critical, the page fits the phone, it has a heading; a screenshot. */
  const check = (name: string) => b.check(name);
  /** Clicks a passkey button; its script navigates once the ceremony and the POST are done. */
  const ceremony = (selector: string) => b.ceremony(selector, 15_000);

  it('is invited, signs in with an emailed link, enrols a passkey, signs out and in with it, makes a key and tests an endpoint', async () => {
    const start = await page.goto(`${publicUrl}/app`);
    assert.ok(start);
    assert.equal(new URL(page.url()).pathname, '/app/sign-in');
    assert.equal(start.headers()['cache-control'], 'no-store');
    await check('sign-in');

    // The operator invites the admin at the admin CLI; the invitation leaves by the real mail path (the
    // outbox, the worker's member-mail workflow, SMTP) and names the sign-in page with the address.
    const signInUrl = `${publicUrl}/app/sign-in?email=${encodeURIComponent(ADMIN)}`;
    const invited = await runAdminAsync(
      {
        DATABASE_URL: s.t.url,
        TEMPORAL_ADDRESS: s.config.temporalAddress,
        PUBLIC_URL: publicUrl,
      },
      ['member', 'invite', '--workspace', s.workspace.id, '--email', ADMIN, '--role', 'admin'],
    );
    assert.equal(invited.code, 0, invited.stderr);
    assert.deepEqual((JSON.parse(invited.stdout) as { sign_in_url: string }).sign_in_url, signInUrl);
    const invitation = await waitFor(
      'the invitation at the SMTP sink',
      async () => smtp.received.find((r) => r.to.includes(ADMIN) && /invited/.test(r.mail.subject ?? '')),
      30_000,
      100,
    );
    const named = /Sign in here: (\S+)/.exec(invitation.mail.text ?? '')?.[1];
    assert.equal(named, signInUrl, `the sign-in page in: ${invitation.mail.text}`);
    assert.doesNotMatch(invitation.mail.text ?? '', /\/app\/sign-in\/link\//, 'no link that signs anyone in');

    await page.goto(named);
    assert.equal(await inPage<string>(`document.querySelector('#email').value`), ADMIN, 'filled in');
    await check('sign-in-invited');

    // The link from the real mail path, asked for from this browser, by keyboard alone: Tab from the top
    // of the page reaches the address (past the skip link), and Enter sends the form.
    let tabs = 0;
    while ((await inPage<string>('document.activeElement?.id ?? ""')) !== 'email') {
      assert.ok(++tabs <= 10, 'the address field is reached within 10 Tabs');
      await page.keyboard.press('Tab');
    }
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    assert.match(await text('main'), /If that address belongs to a member, a sign-in link is on its way/);
    await check('link-sent');
    const mail = await waitFor(
      'the sign-in mail at the SMTP sink',
      async () => smtp.received.find((r) => r.to.includes(ADMIN) && r.mail.subject === 'Your sign-in link'),
      30_000,
      100,
    );
    const link = /https?:\/\/\S+\/app\/sign-in\/link\/[A-Za-z0-9_-]+/.exec(mail.mail.text ?? '')?.[0];
    assert.ok(link && link.startsWith(`${publicUrl}/app/sign-in/link/`), `a link in: ${mail.mail.text}`);

    await page.goto(link);
    await check('link');
    await click('main form button[type=submit]');
    assert.equal(new URL(page.url()).pathname, '/app/enrol');
    await page.waitForSelector('form[data-passkey-enrol]:not([hidden])');
    await check('enrol');
    await ceremony('form[data-passkey-enrol] button[type=submit]');
    // One workspace: straight to it.
    assert.equal(new URL(page.url()).pathname, `/app/w/${s.workspace.id}`);
    await check('workspace');
    const credentials = await b.credentials();
    assert.equal(credentials.length, 1, 'one passkey on the authenticator');
    assert.ok(credentials[0]!.resident, 'discoverable: sign-in asks for no address');

    await click('header form[action="/app/sign-out"] button');
    assert.equal(new URL(page.url()).pathname, '/app/sign-in');
    assert.equal(
      (
        await request(app)
          .get('/app/me')
          .set('Cookie', await cookieHeader())
      ).status,
      303,
      'signed out',
    );

    await page.waitForSelector('[data-passkey-sign-in]:not([hidden]) button');
    await ceremony('[data-passkey-sign-in] button');
    assert.equal(new URL(page.url()).pathname, `/app/w/${s.workspace.id}`);

    // A key: scopes chosen (none ticked to begin with), shown once, working on REST.
    await click('a[href$="/keys"]');
    await check('keys');
    assert.equal(await inPage<number>(`document.querySelectorAll('input[name=scopes]:checked').length`), 0);
    await page.type('#name', 'CRM sync');
    await page.click('input[name=scopes][value="business:read"]');
    await page.click('input[name=scopes][value="leads:read"]');
    await click('form[action$="/keys"] button[type=submit]');
    const key = await text('#new-key');
    assert.match(key, /^\S{20,}$/);
    await check('key-created');
    await page.reload();
    assert.equal(await text('#new-key'), '', 'a reload shows no key');
    assert.ok(!(await page.content()).includes(key), 'nor anywhere on the page');
    assert.match(await text('main table'), /CRM sync/);
    const me = await request(app).get('/api/v1/me').set(bearer(key));
    assert.equal(me.status, 200);
    assert.deepEqual((me.body as { key: { scopes: string[] } }).key.scopes.sort(), [
      'business:read',
      'leads:read',
    ]);

    // An endpoint at the loopback receiver, tested with the Test button.
    await click('nav.tabs a[href$="/endpoints"]');
    await check('endpoints');
    await page.type('#url', receiver.url);
    await page.click('input[name=events][value="lead.created"]');
    await click('form[action$="/endpoints"] button[type=submit]');
    const secret = await text('#new-secret');
    assert.match(secret, /^whsec_/);
    receiver.setSecret(secret);
    await check('endpoint-created');
    await click('main a[href*="/endpoints/"]');
    await check('endpoint');
    await click('form[action$="/test"] button');
    assert.match(await text('main'), /Test event queued/);
    const tested = await waitFor(
      'endpoint.test at the receiver',
      async () => receiver.ofType('endpoint.test')[0],
      30_000,
      100,
    );
    assert.ok(tested.helperOk, 'signed with the secret the page showed');
    const logged = await waitFor(
      'the delivery log showing the test',
      async () => {
        await page.reload();
        const log = await text('main table');
        return /endpoint\.test/.test(log) && /succeeded/.test(log) && /#1/.test(log) && /204/.test(log)
          ? log
          : undefined;
      },
      30_000,
      500,
    );
    assert.match(logged, /\d+ ms/);
    await check('endpoint-log');

    for (const [tab, name] of [
      ['audit', 'audit'],
      ['members', 'members'],
    ] as const) {
      await click(`nav.tabs a[href$="/${tab}"]`);
      await check(name);
    }
    assert.match(await text('main'), new RegExp(ADMIN.replace('.', '\\.')));
    await page.goto(`${publicUrl}/app/me`);
    assert.match(await text('main'), /this browser/);
    await check('account');

    // The same pages on a desktop, in another tab of the same browser (its session).
    const desk = await b.browser.newPage();
    await desk.setViewport({ width: 1280, height: 900 });
    for (const [where, name] of [
      [`/app/w/${s.workspace.id}/keys`, 'keys'],
      [
        new URL(page.url()).pathname === '/app/me' ? `/app/w/${s.workspace.id}/endpoints` : '/app/me',
        'endpoints',
      ],
    ] as const) {
      const res = await desk.goto(`${publicUrl}${where}`);
      assert.equal(res?.status(), 200, where);
      await b.check(`desktop-${name}`, desk, 1280);
    }
    await desk.close();

    assert.deepEqual(b.violations, [], 'no page needed anything its policy forbids');
  });

  /** The browser's cookies for the console, as a Cookie header another client can send. */
  async function cookieHeader() {
    const cookies = await b.browser.cookies();
    return cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  }
});
