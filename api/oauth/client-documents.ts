import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import tls from 'node:tls';
import { checkTarget } from '../../domain/webhooks';

export type DocumentPolicy = {
  /** Tests and dev: loopback/private addresses allowed (the webhook policy's allowPrivate). Scheme stays https. */
  allowPrivate: boolean;
  /** Extra trusted CA certificates in PEM (tests serve documents over TLS with their own CA). */
  ca?: string;
  /** DNS servers instead of the system's (tests). */
  dnsServers?: string[];
  /** Whole-fetch deadline: DNS, connect, TLS, headers and body. Default 5000 ms. */
  timeoutMs?: number;
};

/** The metadata as our authorization server (oidc-provider) takes it for a public client. */
type DocumentClient = {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  grant_types: ('authorization_code' | 'refresh_token')[];
  response_types: ['code'];
  token_endpoint_auth_method: 'none';
  application_type: 'web' | 'native';
  client_uri?: string;
  logo_uri?: string;
};

export type DocumentVerdict =
  | {
      ok: true;
      client: DocumentClient;
      /** the client_id URL's hostname, shown on the consent page */
      host: string;
    }
  /** `reason` is for the audit log; never shown to the browser verbatim. */
  | { ok: false; reason: string };

const MAX_CLIENT_ID_CHARS = 2_000;
const MAX_DOCUMENT_BYTES = 5_120;
const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_CACHE_SECONDS = 300;
const MAX_CACHE_SECONDS = 86_400;
const MAX_CACHE_ENTRIES = 1_000;
const MAX_NAME_CHARS = 200;
const MAX_REDIRECT_URIS = 10;
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
const SYMMETRIC_METHODS = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt'];

/**
 * Why a client_id is not a document URL (draft-ietf-oauth-client-id-metadata-document §3), or
 * undefined when it is one. The raw string is checked too: the URL parser quietly resolves dot
 * segments, turns `\` into `/` and drops tabs and newlines, so the URL fetched would not be the
 * client_id the document must repeat.
 */
function shapeProblem(raw: string): string | undefined {
  if (raw.length > MAX_CLIENT_ID_CHARS) return `the client_id is over ${MAX_CLIENT_ID_CHARS} characters`;
  if (/[\s\\]/.test(raw) || /\p{Cc}/u.test(raw))
    return 'the client_id has whitespace, control characters or backslashes';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'the client_id is not a URL';
  }
  // `https:host/path` parses too; the document must name its URL as written, so it must be written whole.
  if (url.protocol !== 'https:' || !/^https:\/\//i.test(raw)) return 'the client_id URL is not https';
  if (url.username || url.password) return 'the client_id URL has a username or password';
  if (raw.includes('#')) return 'the client_id URL has a fragment';
  if (url.pathname === '/') return 'the client_id URL has no path';
  const afterAuthority = raw.slice('https://'.length).replace(/^[^/?]*/, '');
  const rawPath = afterAuthority.split('?')[0]!;
  if (rawPath.split('/').some((s) => /^(\.|%2e){1,2}$/i.test(s)))
    return 'the client_id URL has a . or .. path segment';
  return undefined;
}

/** Whether a client_id has the shape of a Client ID Metadata Document URL (nothing is fetched). */
export const isDocumentClientId = (clientId: string): boolean => shapeProblem(clientId) === undefined;

const isJsonType = (header: string | undefined) => {
  const type = (header ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[^/\s]+\+json$/.test(type);
};

type Fetched = { ok: true; body: Buffer; headers: IncomingHttpHeaders } | { ok: false; reason: string };

/**
 * One GET of the document from the very address the target policy checked (DNS rebinding cannot
 * swap in another between check and connect). No redirect is followed (Node's https never does), and
 * the body is cut off, socket and all, the moment it passes the size limit.
 */
const getDocument = (
  url: URL,
  address: { address: string; family: number },
  policy: DocumentPolicy,
  signal: AbortSignal,
) =>
  new Promise<Fetched>((resolve) => {
    const pinned: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all) callback(null, [address]);
      else callback(null, address.address, address.family);
    };
    let settled = false;
    const finish = (r: Fetched) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onDeadline);
      if (!r.ok) req.destroy();
      resolve(r);
    };
    const req = https.request(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json' },
        lookup: pinned,
        agent: false,
        // SNI carries names only (RFC 6066); an IP literal is verified against the certificate's IP SANs.
        ...(isIP(url.hostname.replace(/^\[|\]$/g, '')) === 0 && { servername: url.hostname }),
        // Added to the public roots, not instead of them.
        ...(policy.ca !== undefined && { ca: [...tls.rootCertificates, policy.ca] }),
      },
      (res) => {
        res.on('error', () =>
          finish({ ok: false, reason: 'the connection broke while reading the document' }),
        );
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400)
          return finish({
            ok: false,
            reason: `the document URL redirects (${status}); redirects are refused`,
          });
        if (status !== 200)
          return finish({ ok: false, reason: `the document URL answered ${status}, not 200` });
        if (!isJsonType(res.headers['content-type']))
          return finish({ ok: false, reason: 'the document is not served as application/json' });
        if (Number(res.headers['content-length'] ?? 0) > MAX_DOCUMENT_BYTES)
          return finish({ ok: false, reason: `the document is over ${MAX_DOCUMENT_BYTES} bytes` });
        const chunks: Buffer[] = [];
        let seen = 0;
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > MAX_DOCUMENT_BYTES)
            finish({ ok: false, reason: `the document is over ${MAX_DOCUMENT_BYTES} bytes` });
          else chunks.push(chunk);
        });
        res.on('end', () => finish({ ok: true, body: Buffer.concat(chunks), headers: res.headers }));
        res.on('close', () =>
          finish({ ok: false, reason: 'the connection closed before the document was complete' }),
        );
      },
    );
    const onDeadline = () => finish({ ok: false, reason: 'fetching the document took too long' });
    if (signal.aborted) onDeadline();
    else signal.addEventListener('abort', onDeadline, { once: true });
    req.on('error', (err: NodeJS.ErrnoException) => {
      const tlsFailure = /CERT|SSL|TLS/i.test(err.code ?? '') || /certificate|ssl|tls/i.test(err.message);
      finish({
        ok: false,
        reason: tlsFailure
          ? `TLS with the document host failed (${err.code ?? 'error'})`
          : `could not reach the document host (${err.code ?? 'error'})`,
      });
    });
    req.end();
  });

/**
 * How long a document may be reused, in seconds, from its response headers (0: not at all). A
 * directive we cannot read counts as "do not store", as RFC 9111 says of a malformed max-age or Expires.
 */
function cacheSeconds(headers: IncomingHttpHeaders, now: number): number {
  const directives = (headers['cache-control'] ?? '')
    .split(',')
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);
  if (directives.includes('no-store') || directives.includes('no-cache')) return 0;
  const maxAge = directives.find((d) => d.startsWith('max-age'));
  if (maxAge !== undefined) {
    const seconds = /^max-age\s*=\s*"?(\d+)"?$/.exec(maxAge)?.[1];
    return seconds === undefined ? 0 : Math.min(Number(seconds), MAX_CACHE_SECONDS);
  }
  if (headers.expires !== undefined) {
    const expires = Date.parse(headers.expires);
    const date = headers.date === undefined ? NaN : Date.parse(headers.date);
    if (Number.isNaN(expires)) return 0;
    const lifetime = Math.floor((expires - (Number.isNaN(date) ? now : date)) / 1000);
    return Math.min(Math.max(lifetime, 0), MAX_CACHE_SECONDS);
  }
  return DEFAULT_CACHE_SECONDS;
}

const parseUrl = (raw: string) => {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
};

const isLoopbackHttp = (url: URL) => url.protocol === 'http:' && LOOPBACK_HOSTS.includes(url.hostname);

/** The document as a public client's metadata, or why it is refused (a reason naming the field). */
function readDocument(
  doc: unknown,
  clientId: string,
): { ok: true; client: DocumentClient } | { ok: false; reason: string } {
  const refuse = (reason: string) => ({ ok: false as const, reason: `the document's ${reason}` });
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return { ok: false, reason: 'the document is not a JSON object' };
  const d = doc as Record<string, unknown>;
  if (d.client_id !== clientId) return refuse('client_id is not the URL it was fetched from');
  if (Object.hasOwn(d, 'client_secret') || Object.hasOwn(d, 'client_secret_expires_at'))
    return refuse('client_secret or client_secret_expires_at is present (a document client is public)');

  const method = d.token_endpoint_auth_method;
  if (typeof method === 'string' && SYMMETRIC_METHODS.includes(method))
    return refuse(
      `token_endpoint_auth_method ${method} is a shared secret, which a document client cannot hold`,
    );
  if (method === 'private_key_jwt')
    return refuse('token_endpoint_auth_method private_key_jwt is not supported');
  if (method !== undefined && method !== 'none') return refuse('token_endpoint_auth_method is not none');

  const name = typeof d.client_name === 'string' ? d.client_name.trim() : '';
  // Bidi controls could make the consent page show a name other than the one given.
  if (name === '' || [...name].length > MAX_NAME_CHARS || /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u.test(name))
    return refuse(`client_name is not a name of 1 to ${MAX_NAME_CHARS} printable characters`);

  const uris = d.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS)
    return refuse(`redirect_uris is not a list of 1 to ${MAX_REDIRECT_URIS} URLs`);
  const parsed: URL[] = [];
  for (const uri of uris as unknown[]) {
    const url = typeof uri === 'string' ? parseUrl(uri) : undefined;
    if (url === undefined || (uri as string).includes('#'))
      return refuse('redirect_uris has an entry that is not an absolute URL without a fragment');
    if (url.protocol !== 'https:' && !isLoopbackHttp(url))
      return refuse('redirect_uris has an entry that is neither https nor http on a loopback host');
    parsed.push(url);
  }

  const grants = d.grant_types === undefined ? [...GRANT_TYPES] : d.grant_types;
  if (
    !Array.isArray(grants) ||
    !grants.includes('authorization_code') ||
    !grants.every((g) => GRANT_TYPES.includes(g as (typeof GRANT_TYPES)[number]))
  )
    return refuse('grant_types is not authorization_code, optionally with refresh_token');

  const responses = d.response_types;
  if (
    responses !== undefined &&
    !(Array.isArray(responses) && responses.length === 1 && responses[0] === 'code')
  )
    return refuse('response_types is not ["code"]');

  const links: Pick<DocumentClient, 'client_uri' | 'logo_uri'> = {};
  for (const field of ['client_uri', 'logo_uri'] as const) {
    const value = d[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || parseUrl(value)?.protocol !== 'https:')
      return refuse(`${field} is not an https URL`);
    links[field] = value;
  }

  return {
    ok: true,
    client: {
      client_id: clientId,
      client_name: name,
      redirect_uris: uris as string[],
      grant_types: [...new Set(grants as DocumentClient['grant_types'])],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // RFC 8252: a native app receives its code on a loopback listener; anything else is a web client.
      application_type: parsed.every(isLoopbackHttp) ? 'native' : 'web',
      ...links,
    },
  };
}

/**
 * The fetcher of Client ID Metadata Documents: a client whose client_id is an https URL publishes its
 * metadata there. Good documents are kept as long as their headers allow (at most a day, the newest
 * 1,000); failures are never kept, so a fixed document is seen on the next try. Fetches of one
 * client_id in flight at once share one request.
 */
export function clientDocuments(
  policy: DocumentPolicy,
  clock: () => number = Date.now,
): { fetch(clientId: string): Promise<DocumentVerdict> } {
  const cache = new Map<string, { client: DocumentClient; host: string; until: number }>();
  const inFlight = new Map<string, Promise<DocumentVerdict>>();

  const load = async (clientId: string): Promise<DocumentVerdict> => {
    const signal = AbortSignal.timeout(policy.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const target = await checkTarget(clientId, policy.allowPrivate, {
      signal,
      ...(policy.dnsServers && { dnsServers: policy.dnsServers }),
    });
    if (!target.ok) return { ok: false, reason: target.reason };
    if (!target.address) return { ok: false, reason: 'the document host has no address' };
    const fetched = await getDocument(target.url, target.address, policy, signal);
    if (!fetched.ok) return fetched;
    let doc: unknown;
    try {
      doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(fetched.body));
    } catch {
      return { ok: false, reason: 'the document is not valid JSON in UTF-8' };
    }
    const read = readDocument(doc, clientId);
    if (!read.ok) return read;
    const host = target.url.hostname;
    const seconds = cacheSeconds(fetched.headers, clock());
    if (seconds > 0) {
      cache.delete(clientId);
      cache.set(clientId, { client: read.client, host, until: clock() + seconds * 1000 });
      // A Map iterates in insertion order: the first key is the oldest entry.
      if (cache.size > MAX_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    }
    return { ok: true, client: read.client, host };
  };

  const fetchShared = (clientId: string): Promise<DocumentVerdict> => {
    const problem = shapeProblem(clientId);
    if (problem !== undefined) return Promise.resolve({ ok: false, reason: problem });
    const cached = cache.get(clientId);
    if (cached && cached.until > clock()) return Promise.resolve({ ok: true, ...cached });
    if (cached) cache.delete(clientId);
    let pending = inFlight.get(clientId);
    if (!pending) {
      pending = load(clientId)
        .catch((): DocumentVerdict => ({ ok: false, reason: 'fetching the document failed unexpectedly' }))
        .finally(() => inFlight.delete(clientId));
      inFlight.set(clientId, pending);
    }
    return pending;
  };

  return {
    // Each caller gets its own copy: the authorization server may amend the metadata it is handed.
    fetch: async (clientId) => {
      const verdict = await fetchShared(clientId);
      return verdict.ok ? { ok: true, client: structuredClone(verdict.client), host: verdict.host } : verdict;
    },
  };
}
