import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import puppeteer, { type Browser, type Page, type Viewport } from 'puppeteer-core';
import { setSellerProfile } from '../../domain/identity/operations/workspace-set-seller-profile';
import type { Services } from '../../domain/kernel/operation';
import { expireQuote } from '../../domain/sales/operations/quote-expire';
import { reviseQuote } from '../../domain/sales/operations/quote-revise';
import { repoRoot } from '../../tooling/paths';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { draftQuote, leadIn, send, today } from '../helpers/sales';
import { testServices } from '../../tooling/services';

/** Debian's package; CHROMIUM_PATH points elsewhere. `.ci/run` installs it. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = path.join(repoRoot(), '.data', 'screenshots');

const SELLER = {
  name: 'Atelier Lumière SARL',
  address: '12 rue des Lilas\n75011 Paris\nFrance',
  email: 'devis@atelier-lumiere.example',
  phone: '+33 1 23 45 67 89',
  terms_text: 'Payment within 30 days of the invoice.\n\nPrices exclude travel, billed at cost.',
};
const CUSTOMER = { first_name: 'Ana', last_name: 'Lima', answers: { company: 'Lima Consulting' } };

const DESKTOP: Viewport = { width: 1280, height: 900 };
const PHONE: Viewport = { width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** The text of a PDF, page by page: Chromium embeds CID fonts, so the bytes hold no plain text. */
async function pdfPages(pdf: Uint8Array): Promise<{ text: string; size: number[] }[]> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await getDocument({ data: new Uint8Array(pdf), isEvalSupported: false, verbosity: 0 }).promise;
  const pages = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const { items } = await page.getTextContent();
    const text = items.map((i) => ('str' in i ? i.str + (i.hasEOL ? '\n' : '') : '')).join('');
    pages.push({ text, size: page.view.slice(2) });
  }
  await doc.destroy();
  return pages;
}

/**
 * The quote's public page in a real headless Chromium, on a real HTTP server: what a customer sees and
 * does from the emailed link (view, sign, decline), the closed pages, a phone's screen, and the same
 * signing with JavaScript turned off. Each step leaves a screenshot in `.data/screenshots/`.
 */
describe('the public quote page in a real browser', () => {
  let t: TestDatabase;
  let services: Services;
  let pageBase: string;
  let server: http.Server;
  let browser: Browser;
  let workspaceId: string;
  /** Subresources and CSP complaints seen on any page: the page must need neither. */
  const loaded: string[] = [];
  const violations: string[] = [];

  before(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `Chromium not found at ${CHROMIUM}: install Debian's chromium (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH`,
      );
    mkdirSync(SCREENSHOTS, { recursive: true });
    t = await freshDatabase();
    workspaceId = (await workspaceWithKey(t.db)).workspace.id;
    // The app is built once the port, and so the links' address, is known.
    const app: { handle?: ReturnType<typeof testApp> } = {};
    server = http.createServer((req, res) => (app.handle ? void app.handle(req, res) : res.end()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const publicUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    services = testServices(t.db);
    pageBase = publicUrl;
    await asOperator(services, setSellerProfile, SELLER, { workspaceId });
    app.handle = testApp(t.db, { config: { quotePagePerMinute: 1_000, publicUrl } });
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      // Root in CI has no user namespace for Chromium's sandbox; /dev/shm is small in containers.
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    });
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await t?.drop();
  });

  const sentQuote = async (
    over: Record<string, unknown> = {},
    customer: Record<string, unknown> = CUSTOMER,
  ) => {
    const lead = await leadIn(services, workspaceId, customer);
    const q = await draftQuote(services, workspaceId, lead.id, over);
    return { q, ...(await send(services, q.id, pageBase)) };
  };
  const quoteRow = async (id: string) =>
    (await t.db.query<Record<string, unknown>[]>(`SELECT * FROM quotes WHERE id = $1`, [id]))[0]!;

  /** A fresh tab that records every request beyond the page itself and every console complaint. */
  const open = async (opts: { javascript?: boolean } = {}) => {
    const page = await browser.newPage();
    await page.setJavaScriptEnabled(opts.javascript ?? true);
    page.on('request', (r) => {
      if (r.resourceType() !== 'document') loaded.push(r.url());
    });
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    return page;
  };
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(SCREENSHOTS, `quote-${name}.png`), fullPage: true });
  /** Evaluated in the page (written as source: this program is typed for Node, not the DOM). */
  const inPage = <T>(page: Page, expression: string) => page.evaluate(expression) as Promise<T>;
  const text = (page: Page, selector: string) =>
    inPage<string>(page, `document.querySelector(${JSON.stringify(selector)}).innerText.trim()`);
  /** Submits a form by clicking its button, answering the response the navigation ended on. */
  const click = async (page: Page, selector: string) => {
    const [res] = await Promise.all([page.waitForNavigation(), page.click(selector)]);
    assert.ok(res, 'the form navigated');
    return res;
  };

  it('shows the quote from the emailed link, styled under its CSP, loading nothing else', async () => {
    const { q, link } = await sentQuote();
    const page = await open();
    const res = await page.goto(link);
    assert.ok(res);
    assert.equal(res.status(), 200);
    assert.match(res.headers()['content-security-policy'] ?? '', /default-src 'none'/);
    assert.match(await text(page, 'h1'), /^Quote Q-\d{6}$/);
    assert.match(await text(page, 'tfoot'), /Total\s+€1,400\.00/);
    assert.equal((await page.$$('tbody tr')).length, 3);
    // The inline stylesheet ran: its hash is the one the policy allows.
    const background = await inPage<string>(page, `getComputedStyle(document.body).backgroundColor`);
    assert.equal(background, 'rgb(245, 245, 247)');
    assert.equal((await page.$$('script')).length, 0, 'no script on the page');
    await shot(page, 'view');
    assert.ok((await quoteRow(q.id)).viewed_at, 'quote.viewed recorded');
    assert.deepEqual(loaded, [], 'nothing loaded beyond the page');
    assert.deepEqual(violations, []);
    await page.close();
  });

  it('signs: refuses without consent (keeping the typed name), then accepts with name and consent', async () => {
    const { q, link } = await sentQuote();
    const page = await open();
    await page.goto(link);
    await page.type('#name', 'Ana Lima');
    const refused = await click(page, 'button.accept');
    assert.equal(refused.status(), 422);
    assert.match(await text(page, '.error'), /Tick the box to agree/);
    assert.equal(await inPage(page, `document.querySelector('#name').value`), 'Ana Lima');
    await shot(page, 'refused-without-consent');
    assert.equal((await quoteRow(q.id)).status, 'SENT', 'the refusal changed nothing');

    await page.click('input[name=consent]');
    const signed = await click(page, 'button.accept');
    assert.equal(signed.status(), 200, 'the redirect after the post lands on the page');
    assert.equal(new URL(signed.url()).pathname, new URL(link).pathname);
    assert.match(await text(page, '.banner.ok'), /Accepted and signed by Ana Lima/);
    assert.equal((await page.$$('form')).length, 0, 'no form on a signed quote');
    const evidence = await text(page, '.details');
    assert.match(evidence, /Signed by\s+Ana Lima/);
    assert.match(evidence, /Signed at\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
    assert.match(evidence, /Signed from\s+127\.0\.0\.1/);
    await shot(page, 'accepted');

    const row = await quoteRow(q.id);
    assert.equal(row.status, 'ACCEPTED');
    const [signature] = await t.db.query<Record<string, string>[]>(
      `SELECT * FROM quote_signatures WHERE quote_id = $1`,
      [q.id],
    );
    assert.equal(signature!.typed_name, 'Ana Lima');
    assert.equal(signature!.consent_version, 'consent-2026-11-v1');
    assert.equal(signature!.document_sha256, row.document_sha256);
    assert.match(signature!.user_agent ?? '', /HeadlessChrome/);
    assert.equal(signature!.client_ip, '127.0.0.1');
    await page.close();
  });

  it('declines', async () => {
    const { q, link } = await sentQuote();
    const page = await open();
    await page.goto(link);
    const res = await click(page, 'button.decline');
    assert.equal(res.status(), 200);
    assert.match(await text(page, '.banner'), /declined/);
    assert.equal((await page.$$('form')).length, 0);
    await shot(page, 'declined');
    assert.equal((await quoteRow(q.id)).status, 'DECLINED');
    await page.close();
  });

  it('an expired quote and a superseded revision say so, and offer nothing to sign', async () => {
    const expired = await sentQuote();
    await asOperator(services, expireQuote, { quote: expired.q.id });
    const page = await open();
    await page.goto(expired.link);
    assert.match(await text(page, '.banner'), /expired: it was valid until \d{4}-\d{2}-\d{2}/);
    assert.equal((await page.$$('form')).length, 0);
    await shot(page, 'expired');

    const first = await sentQuote();
    const revision = (await asOperator(services, reviseQuote, {
      quote: first.q.id,
      lines: [{ description: 'Onboarding workshop', quantity: 1, unit_amount: 100_000 }],
    })) as { id: string };
    const second = await send(services, revision.id, pageBase);
    await page.goto(first.link);
    assert.match(await text(page, '.banner'), /replaced by a newer revision/);
    assert.equal((await page.$$('form')).length, 0);
    await shot(page, 'superseded');
    await page.goto(second.link);
    assert.match(await text(page, 'h1'), /revision 2/);
    assert.equal((await page.$$('button.accept')).length, 1);
    await page.close();
  });

  it('reads on a phone: one column, no sideways scrolling, large targets, no zoom on typing', async () => {
    const { link } = await sentQuote({ interval: 'month' });
    const page = await open();
    await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    await page.goto(link);
    await shot(page, 'phone');
    type Box = { width: number; height: number };
    const layout = await inPage<{ scrollWidth: number; accept: Box; decline: Box; inputFont: number }>(
      page,
      `({
        scrollWidth: document.documentElement.scrollWidth,
        accept: document.querySelector('button.accept').getBoundingClientRect().toJSON(),
        decline: document.querySelector('button.decline').getBoundingClientRect().toJSON(),
        inputFont: parseFloat(getComputedStyle(document.querySelector('#name')).fontSize),
      })`,
    );
    assert.ok(layout.scrollWidth <= 390, `no sideways scrolling (${layout.scrollWidth}px wide)`);
    for (const b of [layout.accept, layout.decline]) {
      assert.ok(b.height >= 44, `a button at least 44px tall (${b.height})`);
      assert.ok(b.width >= 300, `a full-width button on a phone (${b.width})`);
    }
    assert.ok(layout.inputFont >= 16, 'a 16px field, which phones do not zoom into');
    assert.match(await text(page, 'tfoot'), /per month/);
    await page.close();
  });

  it('says who the quote is from and for, when it was issued and until when it is valid, its terms and document details', async () => {
    const { q, link } = await sentQuote();
    const page = await open();
    await page.setViewport(DESKTOP);
    await page.goto(link);
    const parties = await text(page, '.parties');
    assert.match(parties, /FROM\s+Atelier Lumière SARL\s+12 rue des Lilas\s+75011 Paris\s+France/);
    assert.match(parties, /devis@atelier-lumiere\.example\s+\+33 1 23 45 67 89/);
    assert.match(parties, /FOR\s+Ana Lima\s+Lima Consulting/);
    const row = await quoteRow(q.id);
    assert.match(
      await text(page, '.facts'),
      new RegExp(`Issued\\s+${today()}\\s+Valid until\\s+${String(row.valid_until)}`),
    );
    assert.match(
      await text(page, '.terms'),
      /Payment within 30 days of the invoice\.\s+Prices exclude travel/,
    );
    const details = await text(page, '.details');
    assert.match(details, /^DOCUMENT DETAILS/);
    assert.ok(details.includes(String(row.document_sha256)), 'the whole document hash');
    assert.doesNotMatch(details, /Signed by/, 'no signature yet');
    assert.doesNotMatch(await text(page, 'main'), /Tax|VAT/i, 'quotes have no tax to show');
    await shot(page, 'details');
    await page.close();
  });

  it('fits its card at 1280 px and 390 px, open and signed: no element past the card, no sideways scrolling', async () => {
    // What stretches a layout: a long unbroken description, large amounts, a long company name.
    const { link } = await sentQuote(
      {
        interval: 'year',
        lines: [
          {
            description:
              'Migration-of-the-legacy-customer-database-including-all-historical-records-and-attachments',
            quantity: 1_250,
            unit_amount: 9_999_999,
          },
          { description: 'Licence, per seat', quantity: 12, unit_amount: 2_500 },
        ],
      },
      {
        ...CUSTOMER,
        answers: { company: 'Internationale-Gesellschaft-für-Datenverarbeitungsdienstleistungen mbH' },
      },
    );
    const page = await open();
    type Fit = { past: string[]; scrollWidth: number; innerWidth: number };
    const fits = async (viewport: Viewport, state: string) => {
      await page.setViewport(viewport);
      await page.goto(link);
      await shot(page, `fit-${state}-${viewport.width}`);
      const fit = await inPage<Fit>(
        page,
        `(() => {
          const card = document.querySelector('main').getBoundingClientRect();
          const past = [...document.querySelectorAll('main *')].flatMap((e) => {
            const r = e.getBoundingClientRect();
            return r.width > 0 && (r.right > card.right + 0.5 || r.left < card.left - 0.5)
              ? [e.tagName.toLowerCase() + (e.className ? '.' + e.className : '') + ' ' + r.left + '..' + r.right + ' (card ' + card.left + '..' + card.right + ')']
              : [];
          });
          return { past, scrollWidth: document.documentElement.scrollWidth, innerWidth };
        })()`,
      );
      const at = `${state} at ${viewport.width}px`;
      assert.deepEqual(fit.past, [], `${at}: every element within the card`);
      assert.ok(fit.scrollWidth <= fit.innerWidth, `${at}: no sideways scrolling (${fit.scrollWidth}px)`);
    };
    for (const viewport of [DESKTOP, PHONE]) await fits(viewport, 'open');
    await page.type('#name', 'Ana Lima');
    await page.click('input[name=consent]');
    await click(page, 'button.accept');
    for (const viewport of [DESKTOP, PHONE]) await fits(viewport, 'signed');
    await page.close();
  });

  it('prints one clean A4 page: black on white, no forms, the seller and the customer', async () => {
    const { quote, link } = await sentQuote();
    const page = await open();
    await page.goto(link);
    await page.emulateMediaType('print');
    const printed = await inPage<{ forms: string[]; color: string; background: string }>(
      page,
      `({
        forms: [...document.querySelectorAll('form, button')].map((e) => getComputedStyle(e).display),
        color: getComputedStyle(document.querySelector('main')).color,
        background: getComputedStyle(document.body).backgroundColor,
      })`,
    );
    assert.ok(printed.forms.length > 0 && printed.forms.every((d) => d === 'none'), 'no form or button');
    assert.equal(printed.color, 'rgb(0, 0, 0)');
    assert.equal(printed.background, 'rgb(255, 255, 255)');
    await page.emulateMediaType();
    const pdf = await page.pdf({ format: 'A4', path: path.join(SCREENSHOTS, 'quote-print.pdf') });
    const pages = await pdfPages(pdf);
    assert.equal(pages.length, 1, 'one page');
    const [width, height] = pages[0]!.size;
    // A4 is 595 × 842 points; Chromium rounds the page to whole pixels.
    assert.ok(Math.abs(width! - 595.3) < 2 && Math.abs(height! - 841.9) < 2, `A4 (${width} × ${height})`);
    const words = pages[0]!.text.replace(/\s+/g, ' ');
    for (const shown of ['Atelier Lumière SARL', '75011 Paris', 'Ana Lima', 'Lima Consulting', quote.number!])
      assert.ok(words.includes(shown), `the PDF shows ${shown}: ${words}`);
    assert.match(words, /€1,400\.00/);
    assert.doesNotMatch(words, /Accept and sign|Decline|Your full name/, 'no form in print');
    await page.close();
  });

  it('signs with JavaScript turned off: plain forms and a redirect', async () => {
    const { q, link } = await sentQuote();
    const page = await open({ javascript: false });
    await page.goto(link);
    assert.match(await text(page, '.parties'), /Atelier Lumière SARL[\s\S]*Ana Lima[\s\S]*Lima Consulting/);
    assert.match(await text(page, '.terms'), /Payment within 30 days/);
    await page.type('#name', 'Jo Martin');
    await page.click('input[name=consent]');
    const res = await click(page, 'button.accept');
    assert.equal(res.status(), 200);
    assert.match(await text(page, '.banner.ok'), /Accepted and signed by Jo Martin/);
    assert.match(await text(page, '.details'), /Signed by\s+Jo Martin/);
    await shot(page, 'accepted-without-javascript');
    assert.equal((await quoteRow(q.id)).status, 'ACCEPTED');
    await page.close();
    assert.deepEqual(loaded, [], 'nothing loaded beyond the pages');
    assert.deepEqual(violations, [], 'no Content-Security-Policy violation on any page');
  });
});
