import { createHash, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { DataSource } from 'typeorm';
import { csrfToken } from '../../api/console/safety';
import type { DocumentPolicy } from '../../api/oauth/client-documents';
import { buildApp, type AppDeps } from '../../api/server';
import { openSession } from '../../domain/identity';
import { Data } from '../../domain/kernel/data';
import type { Ports } from '../../domain/kernel/operation';
import { loadSigningKeys } from '../../domain/oauth';
import { freePort } from '../../infra/free-port';
import { closeServer, listening } from '../../infra/listen';
import { createLogger } from '../../infra/logger';
import { SERVICE_DEFAULTS, testServices } from '../../tooling/services';

/** A running API with its authorization server, on `http://localhost:<port>` (a host name, as passkeys need). */
export type OauthStack = {
  url: string;
  mcp: string;
  close: () => Promise<void>;
};

/**
 * The API as production builds it (buildApp with the authorization server and its signing keys from
 * the database), listening on a real port: OAuth clients, the official SDKs and a browser reach it as
 * they would a deployment. PUBLIC_URL is its own address, so the resource metadata names the URL the
 * clients connect to.
 */
export async function oauthStack(
  db: DataSource,
  opts: {
    ports?: Partial<Ports>;
    config?: Partial<AppDeps['config']>;
    documents?: Partial<DocumentPolicy>;
    registrationsPerMinute?: number;
  } = {},
): Promise<OauthStack> {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const config = { ...SERVICE_DEFAULTS, publicUrl: url, ...opts.config };
  const jwks = await loadSigningKeys(db, config.secretsKey);
  const app = buildApp({
    services: testServices(db, {
      secretsKey: config.secretsKey,
      publicUrl: url,
      mailFeedbackDomains: config.mailFeedbackDomains,
      ...opts.ports,
    }),
    config,
    log: createLogger('test-oauth', 'error'),
    oauth: {
      jwks,
      documents: { allowPrivate: true, timeoutMs: 3_000, ...opts.documents },
      registrationsPerMinute: opts.registrationsPerMinute ?? 1_000,
    },
  });
  const server: Server = app.listen(port, '127.0.0.1');
  await listening(server, '127.0.0.1');
  return { url, mcp: `${url}/api/mcp`, close: () => closeServer(server) };
}

/** A browser signed in to the console as this person: its cookies and its CSRF token. */
export async function consoleBrowser(db: DataSource, email: string) {
  const [user] = await db.query<{ id: string }[]>(`SELECT id FROM users WHERE email = $1`, [email]);
  const opened = await openSession(
    new Data(db.manager, undefined),
    { userId: user!.id, passkeyId: null, ip: null, userAgent: 'test' },
    { idleMinutes: 30, maxHours: 12 },
    new Date(),
  );
  return {
    userId: user!.id,
    jar: new CookieJar([`__Host-session=${opened.token}`]),
    csrf: csrfToken(SERVICE_DEFAULTS.secretsKey, { session: opened.session.id }),
  };
}

/** A PKCE verifier and its S256 challenge. */
export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The cookies a browser keeps for one host: enough for the authorization server's and the console's. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  constructor(initial: string[] = []) {
    for (const c of initial) this.set(c);
  }
  private set(line: string) {
    const [pair, ...attrs] = line.split(';');
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq).trim();
    const value = pair!.slice(eq + 1).trim();
    const gone = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a));
    if (gone || value === '') this.cookies.delete(name);
    else this.cookies.set(name, value);
  }
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) this.set(line);
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** A GET as a browser makes it (its cookies, no redirect followed): the answer and where it leads. */
export async function browse(jar: CookieJar, url: string, init: RequestInit = {}) {
  const res = await fetch(url, {
    redirect: 'manual',
    ...init,
    headers: { cookie: jar.header(), ...(init.headers as Record<string, string>) },
  });
  jar.take(res);
  const location = res.headers.get('location');
  return { res, location: location ? new URL(location, url).href : undefined };
}

/** Follows redirects as a browser does, until a page answers or the next hop leaves `origin`. */
export async function follow(jar: CookieJar, url: string, origin: string) {
  let at = url;
  for (let hops = 0; hops < 10; hops++) {
    const { res, location } = await browse(jar, at);
    if (!location) return { res, url: at };
    if (new URL(location).origin !== origin) return { res, url: at, leaving: location };
    at = location;
  }
  throw new Error('too many redirects');
}

/**
 * An authorization as a signed-in member makes it, without a browser: the authorization request, the
 * consent page, the member's decision (posted with the console's CSRF token and Origin), and the
 * client's redirect URI it ends at, with its query (code or error, state, iss).
 */
export async function authorize(
  stack: OauthStack,
  member: { jar: CookieJar; csrf: string },
  request: Record<string, string>,
  decide: { workspace?: string; scopes?: string[]; decision?: 'allow' | 'deny' } = {},
): Promise<{ callback?: URL; consent?: Response; refused?: Response }> {
  const auth = new URL(`${stack.url}/oauth/auth`);
  for (const [k, v] of Object.entries(request)) auth.searchParams.set(k, v);
  const first = await follow(member.jar, auth.href, stack.url);
  if (first.leaving) return { callback: new URL(first.leaving) };
  if (!first.url.includes('/app/oauth/')) return { refused: first.res };
  const html = await first.res.text();
  const form = new URLSearchParams({ _csrf: member.csrf, decision: decide.decision ?? 'allow' });
  const workspace = decide.workspace ?? /name="workspace" value="([^"]+)"/.exec(html)?.[1];
  if (workspace) form.set('workspace', workspace);
  const scopes =
    decide.scopes ?? [...html.matchAll(/name="scopes" value="([^"]+)" checked/g)].map((m) => m[1]!);
  for (const s of scopes) form.append('scopes', s);
  const posted = await browse(member.jar, first.url, {
    method: 'POST',
    body: form.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: stack.url },
  });
  if (!posted.location) return { consent: posted.res };
  const next = await follow(member.jar, posted.location, stack.url);
  return next.leaving ? { callback: new URL(next.leaving) } : { consent: next.res };
}

/** A token request (form-encoded, as clients send it): the status and the JSON answer. */
export async function tokenRequest(stack: OauthStack, form: Record<string, string>) {
  const res = await fetch(`${stack.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

/** Registers a public client (RFC 7591), as older MCP clients do. */
export async function registerClient(stack: OauthStack, metadata: Record<string, unknown>) {
  const res = await fetch(`${stack.url}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token_endpoint_auth_method: 'none', ...metadata }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A JSON-RPC answer, as the tests read it. */
export type McpAnswer = {
  result?: { tools?: { name: string }[]; [k: string]: unknown };
  error?: { code: number; message: string; data?: Record<string, unknown> };
};

/** An MCP JSON-RPC call with a bearer (a key or an access token): the HTTP answer. */
export async function mcpCall(
  stack: OauthStack,
  bearer: string | undefined,
  method: string,
  params: unknown = {},
) {
  const res = await fetch(stack.mcp, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: text ? (JSON.parse(text) as McpAnswer) : undefined,
  };
}
