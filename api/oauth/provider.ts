import { hkdfSync } from 'node:crypto';
import Provider, {
  errors,
  interactionPolicy,
  type Adapter,
  type Configuration,
  type KoaContextWithOIDC,
} from 'oidc-provider';
import type { DataSource } from 'typeorm';
import { Data } from '../../domain/kernel/data';
import { SCOPES } from '../../domain/kernel/permissions';
import { CONNECTION_DAYS, grantLive, recordsOf, type SigningJwk } from '../../domain/oauth';
import { clientDocuments, isDocumentClientId, type DocumentPolicy } from './client-documents';

/** Access tokens live 15 minutes; a refresh token 30 days (each use rotates it); a grant as long as its connection. */
const ACCESS_TOKEN_SECONDS = 15 * 60;
const REFRESH_TOKEN_SECONDS = 30 * 86_400;
const GRANT_SECONDS = CONNECTION_DAYS * 86_400;
/** A consent page left open longer than this must start again from the client. */
const INTERACTION_SECONDS = 10 * 60;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const MAX_REDIRECT_URIS = 10;

/** Where a request's refusal is written for its audit row: the API's request state. */
type AuditState = { auditReason?: string; auditOutcome?: 'refused' | 'failed'; auditClientId?: string };
const stateOf = (ctx: unknown): AuditState | undefined => (ctx as { state?: AuditState } | undefined)?.state;

/** Records why the authorization server refused, on the request it refused (the audit row's reason). */
function noteRefusal(ctx: unknown, reason: string) {
  const state = stateOf(ctx);
  if (!state) return;
  state.auditOutcome = 'refused';
  state.auditReason ??= reason.slice(0, 500);
}

/**
 * The authorization server's storage, one adapter per model, on the oauth area's table. A client whose
 * id is an https URL is its Client ID Metadata Document, fetched under the outbound URL policy (never a
 * private address, 5 KB, 5 seconds, cached by its headers); a document that fails leaves the client
 * unknown, and the reason goes to the audit row.
 */
function storage(db: DataSource, documents: ReturnType<typeof clientDocuments>) {
  return (model: string): Adapter => {
    const records = () => recordsOf(new Data(db.manager, undefined), model);
    return {
      upsert: (id, payload, expiresIn) => records().upsert(id, payload, expiresIn),
      find: async (id) => {
        if (model === 'Client' && isDocumentClientId(id)) {
          const verdict = await documents.fetch(id);
          if (verdict.ok) return verdict.client;
          noteRefusal(Provider.ctx, `client metadata document refused: ${verdict.reason}`);
          return undefined;
        }
        return await records().find(id);
      },
      findByUid: async (uid) => await records().findByUid(uid),
      findByUserCode: () => Promise.resolve(undefined),
      consume: async (id) => {
        // Two racing uses of one code or refresh token: the second is refused as a reuse.
        if (!(await records().consume(id))) throw new errors.InvalidGrant('already used');
      },
      destroy: (id) => records().destroy(id),
      revokeByGrantId: (grantId) => records().revokeByGrantId(grantId),
    };
  };
}

/**
 * What a client may register or publish (its `scope` aside, which is dropped): redirect URIs over https, or over http to a loopback address
 * only (a native app, RFC 8252: any port of it); at most ten. A client whose every redirect URI is a
 * loopback one is a native app, whatever it said.
 */
function redirectPolicy(_ctx: unknown, key: string, _value: unknown, metadata: Record<string, unknown>) {
  if (key !== 'software_id') return;
  // A client's `scope` limits nothing here: what its tokens may do is what a member consents to, each
  // time. Clients register the scopes the metadata advertises (the provider knows only OpenID's).
  delete metadata.scope;
  const uris = Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as unknown[]) : [];
  if (uris.length > MAX_REDIRECT_URIS)
    throw new errors.InvalidClientMetadata(`at most ${MAX_REDIRECT_URIS} redirect_uris`);
  const loopback = (u: URL) => u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname);
  for (const raw of uris) {
    const u = typeof raw === 'string' ? URL.parse(raw) : null;
    if (!u || !(u.protocol === 'https:' || loopback(u))) {
      // RFC 7591's error for a refused redirect URI, with why (its constructor takes no description).
      const refused = new errors.InvalidRedirectUri();
      refused.error_description = 'redirect_uris must use https, or http to a loopback address';
      throw refused;
    }
  }
  if (uris.length > 0 && uris.every((raw) => loopback(new URL(raw as string))))
    metadata.application_type = 'native';
}

/** The cookies the authorization server signs (its interaction and session cookies): derived from SECRETS_KEY. */
export const oauthCookieKeys = (secretsKey: Buffer): string[] => [
  Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'oauth cookies', 32)).toString('base64url'),
];

export type AuthorizationServerSettings = {
  db: DataSource;
  /** PUBLIC_URL: the issuer, and the origin of the one resource tokens are issued for. */
  publicUrl: string;
  jwks: SigningJwk[];
  cookieKeys: string[];
  /** How Client ID Metadata Documents are fetched (the webhook policy's private-address rule; tests add a CA). */
  documents: DocumentPolicy;
};

/** The one resource this server issues tokens for: the assistant endpoint. */
export const mcpResource = (publicUrl: string) => `${publicUrl.replace(/\/+$/, '')}/api/mcp`;
/** The issuer: PUBLIC_URL's origin and path, without a trailing slash. */
export const issuerOf = (publicUrl: string) => publicUrl.replace(/\/+$/, '');

/**
 * The authorization server (oidc-provider, OpenID Certified): authorization code with PKCE S256 only,
 * public clients by metadata document or registration, one resource (the assistant endpoint) whose
 * opaque access tokens live 15 minutes, refresh tokens rotated on every use (a reused one ends its
 * grant), and every authorization decided by the member on the console's consent page.
 */
export function authorizationServer(s: AuthorizationServerSettings): Provider {
  const resource = mcpResource(s.publicUrl);
  const documents = clientDocuments(s.documents);
  const policy = interactionPolicy.base();
  // Every authorization goes through the console: the member signs in there (their passkey) and
  // decides on the consent page, which answers both prompts at once.
  policy
    .get('login')!
    .checks.add(
      new interactionPolicy.Check('console', 'each authorization is decided on the console', (ctx) =>
        ctx.oidc.result?.login
          ? interactionPolicy.Check.NO_NEED_TO_PROMPT
          : interactionPolicy.Check.REQUEST_PROMPT,
      ),
    );
  const configuration: Configuration = {
    adapter: storage(s.db, documents),
    jwks: { keys: s.jwks },
    cookies: {
      keys: s.cookieKeys,
      long: { httpOnly: true, sameSite: 'lax', signed: true },
      short: { httpOnly: true, sameSite: 'lax', signed: true },
    },
    responseTypes: ['code'],
    scopes: ['openid'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      introspection: { enabled: false },
      revocation: { enabled: true },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget();
          return {
            scope: SCOPES.join(' '),
            audience: resource,
            accessTokenTTL: ACCESS_TOKEN_SECONDS,
            accessTokenFormat: 'opaque',
          };
        },
      },
    },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    expiresWithSession: () => false,
    // A grant is the consent the console recorded: only the one this authorization just made counts,
    // so no earlier consent is reused silently.
    loadExistingGrant: async (ctx) => {
      const id = ctx.oidc.result?.consent?.grantId;
      return id ? ctx.oidc.provider.Grant.find(id) : undefined;
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_SECONDS,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TOKEN_SECONDS,
      Grant: GRANT_SECONDS,
      Session: INTERACTION_SECONDS,
      Interaction: INTERACTION_SECONDS,
    },
    interactions: { policy, url: (_ctx, interaction) => `/app/oauth/${interaction.uid}` },
    // At every code exchange and refresh: a grant whose connection was revoked, expired or lost its
    // member gets no token (invalid_grant), whatever ended it.
    findAccount: async (_ctx, sub, token) => {
      const grantId = token && 'grantId' in token ? token.grantId : undefined;
      if (grantId && !(await grantLive(new Data(s.db.manager, undefined), grantId))) return undefined;
      return { accountId: sub, claims: () => ({ sub }) };
    },
    extraClientMetadata: { properties: ['software_id'], validator: redirectPolicy },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = errorPage(String(out.error ?? 'error'), String(out.error_description ?? ''));
    },
  };
  const provider = new Provider(issuerOf(s.publicUrl), configuration);
  provider.use(async (ctx, next) => {
    // A request that names no scope asks for what the member will be offered: every scope, narrowed on the consent page.
    if (ctx.path === '/auth' && ctx.method === 'GET' && !ctx.query.scope)
      ctx.query = { ...ctx.query, scope: SCOPES.join(' ') };
    await next();
    const route = (ctx as { oidc?: { route?: string } }).oidc?.route;
    if (route === 'discovery' && ctx.body && typeof ctx.body === 'object') {
      const body = ctx.body as Record<string, unknown>;
      body.scopes_supported = [...SCOPES];
      body.client_id_metadata_document_supported = true;
    }
  });
  auditProvider(provider);
  return provider;
}

/** The authorization server's refusals, each on its request's audit row with the precise reason. */
function auditProvider(provider: Provider) {
  const refused = (
    ctx: KoaContextWithOIDC,
    err: Error & { error?: string; error_detail?: string; error_description?: string },
  ) => {
    const client = ctx.oidc?.client?.clientId ?? ctx.oidc?.params?.client_id;
    const state = stateOf(ctx);
    if (state && typeof client === 'string') state.auditClientId = client.slice(0, 2000);
    noteRefusal(ctx, `${err.error ?? err.name}: ${err.error_detail ?? err.error_description ?? err.message}`);
  };
  provider.on('authorization.error', refused);
  provider.on('grant.error', refused);
  provider.on('registration_create.error', refused);
  provider.on('revocation.error', refused);
  provider.on('discovery.error', refused);
  provider.on('jwks.error', refused);
  provider.on('server_error', (ctx: KoaContextWithOIDC, err: Error) => {
    const state = stateOf(ctx);
    if (state) {
      state.auditOutcome = 'failed';
      state.auditReason = `${err.name}: ${err.message}`.slice(0, 500);
    }
  });
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** What a person sees when an authorization cannot go on (an unknown client, a redirect URI not its own). */
function errorPage(error: string, description: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Authorization refused</title></head>
<body><main><h1>This authorization cannot go on</h1><p>${escapeHtml(description || 'The request is not valid.')}</p><p><code>${escapeHtml(error)}</code></p><p>Go back to the application that sent you here and try again.</p></main></body></html>`;
}
