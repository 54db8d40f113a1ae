import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { DataSource } from 'typeorm';
import type { Scope } from '../../domain/kernel/permissions';
import { waitFor } from '../../tooling/processes';
import type { startSmtpSink } from '../../tooling/smtp-sink';
import type { consoleBrowser } from './console-browser';
import { testCertificates } from './test-tls';

/** What the member keeps on the consent page in the SDK tests: leads, and disconnecting a system (a gated tool). */
export const KEPT_SCOPES: Scope[] = ['leads:read', 'leads:write', 'business:write'];
/** Every tool an admin's connection holding exactly KEPT_SCOPES is offered, sorted. */
export const KEPT_TOOLS = [
  'appointment.book',
  'appointment.cancel',
  'appointment.confirm',
  'appointment.decline',
  'appointment.get',
  'appointment.list',
  'appointment.mark_no_show',
  'connection.disconnect',
  'conversation.get',
  'conversation.list',
  'conversation.reply',
  'lead.add_note',
  'lead.archive',
  'lead.create',
  'lead.get',
  'lead.search',
  'lead.set_status',
  'lead.update',
];

type Browser = Awaited<ReturnType<typeof consoleBrowser>>;
type SmtpSink = Awaited<ReturnType<typeof startSmtpSink>>;

const closing = (server: http.Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/**
 * Client ID Metadata Documents as a client publishes them: over real TLS at
 * `https://localhost:<port>/<path>`, with a certificate from the test CA (`ca`, which the
 * authorization server is told to trust). `requests` counts each path's fetches.
 */
export async function documentServer() {
  const { ca, key, cert } = testCertificates();
  const documents = new Map<string, string>();
  const requests = new Map<string, number>();
  const server = https.createServer({ key, cert }, (req, res) => {
    const path = req.url ?? '';
    requests.set(path, (requests.get(path) ?? 0) + 1);
    const body = documents.get(path);
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://localhost:${(server.address() as AddressInfo).port}`;
  return {
    ca,
    /** Publishes a public client's document at `path`; answers its client_id (the document's URL). */
    publish: (path: string, metadata: { client_name: string; redirect_uris: string[] }) => {
      const clientId = `${origin}${path}`;
      documents.set(
        path,
        JSON.stringify({
          client_id: clientId,
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          ...metadata,
        }),
      );
      return clientId;
    },
    requests: (path: string) => requests.get(path) ?? 0,
    close: () => closing(server),
  };
}

/**
 * A native client's redirect URI (RFC 8252): a listener on `http://127.0.0.1:<port>/callback`. Each
 * arrival's query (code, state, iss; or error) is queued, so `next()` never misses one that came first.
 */
export async function callbackListener() {
  const waiting: ((query: URLSearchParams) => void)[] = [];
  const arrived: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><title>Connected</title><h1>You can close this window.</h1>');
    const waiter = waiting.shift();
    if (waiter) waiter(url.searchParams);
    else arrived.push(url.searchParams);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    next: () =>
      arrived.length > 0
        ? Promise.resolve(arrived.shift()!)
        : new Promise<URLSearchParams>((resolve) => waiting.push(resolve)),
    close: () => closing(server),
  };
}

/**
 * The official TypeScript SDK's OAuth client side, kept in memory as a desktop assistant would keep it
 * in its keychain. With `clientMetadataUrl` it names itself by its metadata document; without, it
 * registers (DCR). Each authorization URL the SDK would open is recorded in `authorizations`: the test
 * opens it in Chromium.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  readonly redirectUrl: string;
  readonly clientMetadataUrl?: string;
  readonly authorizations: URL[] = [];
  /** The `state` of the latest authorization request: the SDK leaves checking it to its caller. */
  lastState?: string;
  private readonly metadata: OAuthClientMetadata;
  private info?: StoredOAuthClientInformation;
  private saved?: StoredOAuthTokens;
  private verifier?: string;
  private discovery?: OAuthDiscoveryState;

  constructor(o: { redirectUrl: string; clientName: string; clientMetadataUrl?: string }) {
    this.redirectUrl = o.redirectUrl;
    this.clientMetadataUrl = o.clientMetadataUrl;
    this.metadata = {
      client_name: o.clientName,
      redirect_uris: [o.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  get clientMetadata() {
    return this.metadata;
  }
  state() {
    this.lastState = randomUUID();
    return this.lastState;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizations.push(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
  // Kept so the callback leg can check the issuer it redirected to is the one answering (SEP-2352).
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'client') this.info = undefined;
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
}

/**
 * A member's first visit, as console-browser.test.ts makes it: a sign-in link asked for from this
 * browser and read from the SMTP sink, a passkey enrolled on the virtual authenticator; then signing
 * out, so the authorization that follows has to sign in with it.
 */
export async function enrolWithPasskey(b: Browser, consoleUrl: string, email: string, smtp: SmtpSink) {
  const { page, click, ceremony } = b;
  await page.goto(`${consoleUrl}/app/sign-in?email=${encodeURIComponent(email)}`);
  await click('form[action="/app/sign-in"] button[type=submit]');
  const mail = await waitFor(
    'the sign-in mail at the SMTP sink',
    async () => smtp.received.find((r) => r.to.includes(email) && r.mail.subject === 'Your sign-in link'),
    30_000,
    100,
  );
  const link = /https?:\/\/\S+\/app\/sign-in\/link\/[A-Za-z0-9_-]+/.exec(mail.mail.text ?? '')?.[0];
  assert.ok(link, `a link in: ${mail.mail.text}`);
  assert.ok(link.startsWith(`${consoleUrl}/app/sign-in/link/`), link);
  await page.goto(link);
  await click('main form button[type=submit]');
  await page.waitForSelector('form[data-passkey-enrol]:not([hidden])');
  await ceremony('form[data-passkey-enrol] button[type=submit]', 15_000);
  assert.match(new URL(page.url()).pathname, /^\/app\/w\//, 'enrolled and in the workspace');
  assert.equal((await b.credentials()).length, 1, 'one passkey on the authenticator');
  await signOut(b, consoleUrl);
}

/** Signs the browser out of the console, if it is signed in. */
export async function signOut(b: Browser, consoleUrl: string) {
  await b.page.goto(`${consoleUrl}/app/me`);
  if (new URL(b.page.url()).pathname !== '/app/sign-in')
    await b.click('header form[action="/app/sign-out"] button');
  assert.equal(new URL(b.page.url()).pathname, '/app/sign-in', 'signed out');
}

/**
 * An authorization as the member meets it in Chromium, signed out: the authorization URL leads to the
 * console's sign-in page; the passkey signs them in and leads back to the consent page; every scope
 * not in `keep` is unticked; Allow leads the browser to the client's redirect URI. Answers the consent
 * page's text as the member read it.
 */
export async function consentInBrowser(
  b: Browser,
  authorizationUrl: URL,
  keep: readonly Scope[],
  screenshot: string,
) {
  const { page, ceremony, text } = b;
  const redirectUri = authorizationUrl.searchParams.get('redirect_uri');
  await page.goto(authorizationUrl.href);
  assert.equal(new URL(page.url()).pathname, '/app/sign-in', 'a browser signed out is asked to sign in');
  await page.waitForSelector('[data-passkey-sign-in]:not([hidden]) button');
  await ceremony('[data-passkey-sign-in] button', 15_000);
  assert.match(new URL(page.url()).pathname, /^\/app\/oauth\/[\w-]+$/, 'back to the consent page');
  assert.equal(await text('h1'), 'Connect an assistant');
  const consent = await text('main');
  await b.check(screenshot);
  const ticked = await b.inPage<string[]>(
    `[...document.querySelectorAll('input[name=scopes]:checked')].map((i) => i.value)`,
  );
  for (const scope of ticked.filter((s) => !(keep as readonly string[]).includes(s)))
    await page.click(`input[name=scopes][value="${scope}"]`);
  assert.deepEqual(
    (
      await b.inPage<string[]>(
        `[...document.querySelectorAll('input[name=scopes]:checked')].map((i) => i.value)`,
      )
    ).sort(),
    [...keep].sort(),
    'only the kept scopes stay ticked',
  );
  await Promise.all([page.waitForNavigation(), page.click('button[name=decision][value=allow]')]);
  assert.ok(redirectUri && page.url().startsWith(`${redirectUri}?`), `at the redirect URI: ${page.url()}`);
  return consent;
}

/** The authorization server's records of one grant, by model, as the tests read them. */
export const grantRecords = (db: DataSource, grantId: string) =>
  db.query<{ model: string; id: string; consumed_at: Date | null }[]>(
    `SELECT model, id, consumed_at FROM oauth_records WHERE grant_id = $1 ORDER BY model, id`,
    [grantId],
  );

/**
 * What a connection's end leaves, as the member's disconnect must: its credential revoked, no token of
 * its grant left, and the request it parked withdrawn.
 */
export async function assertConnectionEnded(
  db: DataSource,
  connection: { key_id: string; grant_id: string },
  approvalId: string,
) {
  const [credential] = await db.query<{ revoked_at: Date | null }[]>(
    `SELECT revoked_at FROM api_keys WHERE id = $1`,
    [connection.key_id],
  );
  assert.ok(credential?.revoked_at, 'the connection is revoked');
  const left = await grantRecords(db, connection.grant_id);
  assert.deepEqual(
    left.filter((r) => r.model === 'AccessToken' || r.model === 'RefreshToken'),
    [],
    'no token of its grant is left',
  );
  const [approval] = await db.query<{ status: string }[]>(`SELECT status FROM approvals WHERE id = $1`, [
    approvalId,
  ]);
  assert.equal(approval?.status, 'CANCELLED', 'what it parked is withdrawn');
}

/** Who the audit log says parked the connection's gated `connection.disconnect`: the client and the member. */
export async function parkedBy(db: DataSource, keyId: string) {
  const [audit] = await db.query<{ client_id: string; actor_user_id: string }[]>(
    `SELECT client_id, actor_user_id FROM audit_log
      WHERE door = 'mcp' AND action = 'connection.disconnect' AND outcome = 'parked' AND key_id = $1`,
    [keyId],
  );
  return audit;
}
