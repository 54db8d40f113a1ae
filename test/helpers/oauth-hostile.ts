import assert from 'node:assert/strict';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import type { Scope } from '../../domain/kernel/permissions';
import { waitFor } from '../../tooling/processes';
import {
  authorize,
  browse,
  follow,
  pkce,
  registerClient,
  tokenRequest,
  type CookieJar,
  type OauthStack,
} from './oauth';
import { testCertificates } from './test-tls';

type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

let clients = 0;

/** Client ID Metadata Documents served over real TLS on loopback (a certificate from the test CA), counting every request. */
export type DocumentHost = {
  /** The test CA, for the stack's `documents: { ca }`. */
  ca: string;
  port: number;
  /** A document URL on this host, by `localhost` or by its address. */
  url: (path: string, host?: 'localhost' | '127.0.0.1') => string;
  /** Serves a JSON body (or a handler) at `path`. */
  serve: (path: string, body: unknown) => void;
  hits: (path: string) => number;
  close: () => Promise<void>;
};

export async function documentHost(): Promise<DocumentHost> {
  const { ca, key, cert } = testCertificates();
  const routes = new Map<string, Route>();
  const seen = new Map<string, number>();
  const server = https.createServer({ key, cert }, (req, res) => {
    const path = req.url ?? '';
    seen.set(path, (seen.get(path) ?? 0) + 1);
    const route = routes.get(path);
    if (route) route(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ca,
    port,
    url: (path, host = 'localhost') => `https://${host}:${port}${path}`,
    serve: (path, body) =>
      routes.set(path, (_req, res) => {
        const text = JSON.stringify(body);
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(text)),
          'cache-control': 'no-store',
        });
        res.end(text);
      }),
    hits: (path) => seen.get(path) ?? 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The loopback redirect URI the hostile tests' clients register (a native app's, RFC 8252). */
export const REDIRECT = 'http://127.0.0.1:4567/callback';

/** Registers a public client with these redirect URIs (RFC 7591) and answers its client_id. */
export async function registered(stack: OauthStack, redirects = [REDIRECT]) {
  const reg = await registerClient(stack, {
    client_name: `Hostile test client ${++clients}`,
    redirect_uris: redirects,
  });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
  return String(reg.body.client_id);
}

/** A valid authorization request's parameters, with `over` changed (undefined: left out). */
export function requestParams(
  stack: OauthStack,
  clientId: string,
  over: Record<string, string | undefined> = {},
): Record<string, string> {
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    state: 'st-hostile',
    scope: 'leads:read',
    resource: stack.mcp,
    ...over,
  };
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Redirected back to the client with `error`, its description, its state and the issuer (RFC 9207); no code. */
export function assertRedirectedWith(
  stack: OauthStack,
  location: URL | undefined,
  error: string,
  description: RegExp,
) {
  assert.ok(location, 'redirected to the client');
  assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
  assert.equal(location.searchParams.get('error'), error, location.href);
  assert.match(location.searchParams.get('error_description') ?? '', description);
  assert.equal(location.searchParams.get('state'), 'st-hostile');
  assert.equal(location.searchParams.get('iss'), stack.url);
  assert.equal(location.searchParams.get('code'), null);
}

/** Rendered, not redirected: the redirect URI is not one the client owns (or the client is unknown), so nothing goes there. */
export function assertRenderedWith(answer: { res: Response; location?: URL; body: string }, error: string) {
  assert.equal(answer.res.status, 400, answer.body);
  assert.equal(answer.location, undefined);
  assert.match(answer.body, new RegExp(`<code>${error}</code>`));
}

/** A member's browser: its cookies and the console's CSRF token of its session. */
export type Member = { jar: CookieJar; csrf: string; userId: string };

/** An assistant connected through the whole flow: its client, its tokens and its connection's credential. */
export type Connected = {
  clientId: string;
  redirect: string;
  access: string;
  refresh: string;
  code: string;
  verifier: string;
  /** The assistant connection's id (its credential row in api_keys). */
  keyId: string;
};

/**
 * Registers a client (unless one is given), has the member consent to `scopes`, and exchanges the code:
 * a live connection, as an assistant holds it after connecting.
 */
export async function connect(
  db: DataSource,
  stack: OauthStack,
  member: Member,
  opts: { scopes: Scope[]; clientId?: string; redirect?: string; workspace?: string },
): Promise<Connected> {
  const redirect = opts.redirect ?? REDIRECT;
  const clientId = opts.clientId ?? (await registered(stack, [redirect]));
  const { verifier, challenge } = pkce();
  const done = await authorize(
    stack,
    member,
    {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirect,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'st',
      scope: opts.scopes.join(' '),
      resource: stack.mcp,
    },
    { scopes: opts.scopes, ...(opts.workspace && { workspace: opts.workspace }) },
  );
  const code = done.callback?.searchParams.get('code');
  assert.ok(code, `no code: ${done.callback?.href} ${done.consent?.status} ${done.refused?.status}`);
  const tokens = await tokenRequest(stack, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirect,
    client_id: clientId,
    code_verifier: verifier,
    resource: stack.mcp,
  });
  assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
  const [row] = await db.query<{ key_id: string }[]>(
    `SELECT key_id FROM assistant_connections WHERE client_id = $1 ORDER BY created_at DESC LIMIT 1`,
    [clientId],
  );
  return {
    clientId,
    redirect,
    access: String(tokens.body.access_token),
    refresh: String(tokens.body.refresh_token),
    code,
    verifier,
    keyId: row!.key_id,
  };
}

/**
 * An authorization request as a browser sends it, not followed: the answer, where it leads, and the
 * audit row's Request-Id.
 */
export async function authorizationRequest(
  stack: OauthStack,
  jar: CookieJar,
  params: Record<string, string>,
) {
  const url = new URL(`${stack.url}/oauth/auth`);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const { res, location } = await browse(jar, url.href);
  return { res, location: location ? new URL(location) : undefined, body: await res.text() };
}

/** The consent page a member reaches for an authorization: its URL and its HTML. */
export async function consentPage(stack: OauthStack, jar: CookieJar, params: Record<string, string>) {
  const url = new URL(`${stack.url}/oauth/auth`);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const reached = await follow(jar, url.href, stack.url);
  assert.ok(reached.url.includes('/app/oauth/'), `not a consent page: ${reached.url} ${reached.res.status}`);
  assert.equal(reached.res.status, 200);
  return { url: reached.url, html: await reached.res.text() };
}

export type AuditRow = {
  door: string;
  action: string;
  outcome: string;
  status: number;
  reason: string | null;
  client_id: string | null;
  key_id: string | null;
};

/** An HTTP answer (a fetch Response, or mcpCall's and tokenRequest's): its headers name its audit row. */
type Answer = { headers: Headers };

/** The audit row of one answer, found by its Request-Id. */
export async function auditOf(db: DataSource, res: Answer): Promise<AuditRow> {
  const id = res.headers.get('request-id');
  assert.ok(id, 'the answer has a Request-Id');
  const [row] = await db.query<AuditRow[]>(
    `SELECT door, action, outcome, status, reason, client_id, key_id FROM audit_log WHERE request_id = $1`,
    [id],
  );
  assert.ok(row, `no audit row for ${id}`);
  return row;
}

/** Asserts the answer's audit row: refused at `door`, for a reason matching `reason`. */
export async function assertRefusedAudit(db: DataSource, res: Answer, door: string, reason: RegExp) {
  const row = await auditOf(db, res);
  assert.equal(row.door, door, JSON.stringify(row));
  assert.equal(row.outcome, 'refused', JSON.stringify(row));
  assert.match(row.reason ?? '', reason, JSON.stringify(row));
  return row;
}

/** What a refusal must leave as it was: connections, credentials, and the authorization server's records by model. */
export async function tally(db: DataSource): Promise<Record<string, number>> {
  const [counts] = await db.query<{ connections: number; keys: number; revoked: number }[]>(
    `SELECT (SELECT count(*)::int FROM assistant_connections) AS connections,
            (SELECT count(*)::int FROM api_keys) AS keys,
            (SELECT count(*)::int FROM api_keys WHERE revoked_at IS NOT NULL) AS revoked`,
  );
  const records = await db.query<{ model: string; n: number }[]>(
    `SELECT model, count(*)::int AS n FROM oauth_records
      WHERE model IN ('Grant', 'AuthorizationCode', 'AccessToken', 'RefreshToken', 'Client') GROUP BY model`,
  );
  return { ...counts!, ...Object.fromEntries(records.map((r) => [r.model, r.n])) };
}

/** How many records the connection's grant has left: its tokens, its codes and the grant itself. */
export const grantRecords = async (db: DataSource, keyId: string) =>
  (
    await db.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM oauth_records r JOIN assistant_connections c
          ON r.grant_id = c.grant_id OR (r.model = 'Grant' AND r.id = c.grant_id)
        WHERE c.key_id = $1`,
      [keyId],
    )
  )[0]!.n;

/** Whether the connection's credential is revoked, polled until it is (it ends right after the answer that ended its grant). */
export const revokedSoon = (db: DataSource, keyId: string) =>
  waitFor(
    `the connection ${keyId} revoked`,
    async () =>
      (
        await db.query<{ revoked_at: Date | null }[]>(`SELECT revoked_at FROM api_keys WHERE id = $1`, [
          keyId,
        ])
      )[0]?.revoked_at ?? undefined,
    10_000,
    20,
  );

/** A form POST to the consent page, as a browser sends it. */
export const postConsent = (jar: CookieJar, url: string, form: URLSearchParams, origin: string | undefined) =>
  browse(jar, url, {
    method: 'POST',
    body: form.toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(origin !== undefined && { origin }),
    },
  });
