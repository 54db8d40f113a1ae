import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import puppeteer, { type HTTPResponse, type Page } from 'puppeteer-core';
import { repoRoot } from '../../tooling/paths';

/** Debian's package; CHROMIUM_PATH points elsewhere. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const AXE = path.join(repoRoot(), 'node_modules', 'axe-core', 'axe.min.js');
const SCREENSHOTS = path.join(repoRoot(), '.data', 'screenshots');

type AxeResult = {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown }[] }[];
};

/**
 * A loopback server for the console, addressed as http://localhost:<port> (WebAuthn takes a domain as
 * its relying party, never an address); its handler is set once the app that needs its address exists.
 */
export async function consoleServer() {
  const handler: { app?: (req: http.IncomingMessage, res: http.ServerResponse) => unknown } = {};
  const server = http.createServer((req, res) => (handler.app ? void handler.app(req, res) : res.end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    publicUrl: `http://localhost:${port}`,
    /** The same server by address, for clients that do not resolve localhost to it (Node may try ::1). */
    loopbackUrl: `http://127.0.0.1:${port}`,
    serve: (app: NonNullable<typeof handler.app>) => {
      handler.app = app;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Chromium on a 390px phone with a virtual passkey authenticator (user verification done, presence
 * simulated): what a member meets. `check` holds each page to axe-core (nothing serious or critical),
 * the phone's width and an <h1>, and keeps a screenshot; Content-Security-Policy complaints are
 * collected in `violations`.
 */
export async function consoleBrowser() {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  const cdp = await page.createCDPSession();
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });

  /** Evaluated in the page (written as source: this program is typed for Node, not the DOM). */
  const inPage = <T>(expression: string, on: Page = page) => on.evaluate(expression) as Promise<T>;
  const text = (selector: string) =>
    inPage<string>(`(document.querySelector(${JSON.stringify(selector)})?.innerText ?? '').trim()`);

  return {
    browser,
    page,
    violations,
    inPage,
    text,
    /** Clicks what navigates, and answers the navigation's response. */
    click: async (selector: string): Promise<HTTPResponse> => {
      const [res] = await Promise.all([page.waitForNavigation(), page.click(selector)]);
      assert.ok(res, `${selector} navigated`);
      return res;
    },
    /** Clicks a passkey button; its script navigates once the ceremony and its POSTs are done. */
    ceremony: async (selector: string, timeout = 30_000) => {
      await Promise.all([page.waitForNavigation({ timeout }), page.click(selector)]);
    },
    /** The passkeys on the virtual authenticator, their ids in base64url as the server records them. */
    credentials: async () =>
      (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials.map((c) => ({
        id: Buffer.from(c.credentialId, 'base64').toString('base64url'),
        resident: c.isResidentCredential,
      })),
    /**
     * The page as it stands: axe-core finds nothing serious or critical, nothing is wider than `width`
     * (the phone's, unless the page is another's), it says where it is in an <h1>. axe is evaluated
     * through DevTools, which the page's policy does not govern.
     */
    check: async (name: string, on: Page = page, width = 390) => {
      await on.evaluate(readFileSync(AXE, 'utf8'));
      const result = await inPage<AxeResult>(`axe.run(document, { resultTypes: ['violations'] })`, on);
      const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(
        bad.map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`),
        [],
        `${name}: axe`,
      );
      const scroll = await inPage<number>('document.documentElement.scrollWidth', on);
      assert.ok(scroll <= width, `${name}: ${scroll}px wide on a ${width}px screen`);
      assert.ok(
        await inPage<string>(`(document.querySelector('h1')?.innerText ?? '').trim()`, on),
        `${name}: has a heading`,
      );
      await on.screenshot({ path: path.join(SCREENSHOTS, `console-${name}.png`), fullPage: true });
    },
    close: () => browser.close(),
  };
}
