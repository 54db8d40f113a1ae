import type Router from '@koa/router';
import type Provider from 'oidc-provider';
import { roleOf, workspacesOf } from '../../domain/identity';
import { Data } from '../../domain/kernel/data';
import { SCOPES, type Scope } from '../../domain/kernel/permissions';
import { operations, type ClientKind } from '../../domain/oauth';
import type { AppContext, RequestState } from '../context';
import { isDocumentClientId } from '../oauth/client-documents';
import { mcpResource } from '../oauth/provider';
import { escape } from '../pages/html';
import { sendPage } from '../pages/security';
import type { ConsoleKit } from './door';
import { fieldErrors } from './door';
import { checkboxes, csrfField, formError, page, selectField, type FieldErrors } from './layout';
import { AUTHORIZE_COOKIE, CONSOLE_CSP, CONSOLE_REFERRER, setCookie } from './safety';
import { ConsoleRefusal, userData, visitOf } from './visit';

/** What each scope lets an assistant do, in the words the consent page uses. */
const SCOPE_TEXT: Record<Scope, string> = {
  'leads:read': 'Read your leads',
  'leads:write': 'Create and change leads',
  'prospects:read': 'Read imported prospect lists',
  'prospects:write': 'Import prospects and approve them into leads',
  'campaigns:read': 'Read campaigns',
  'campaigns:write': 'Draft, launch and pause campaigns',
  'analytics:read': 'Read the period summary',
  'business:read': "Read the workspace's settings",
  'business:write': "Change the workspace's settings",
  'agents:read': 'Read AI agents and their runs',
  'agents:write': 'Set up and run AI agents',
};

/** The client as the consent page shows it, from what the authorization server loaded. */
type ShownClient = {
  id: string;
  name: string;
  host: string;
  kind: ClientKind;
  redirectUri: string;
};

/** An interaction the consent page decides: the authorization's request, and the client it is for. */
type Pending = { uid: string; client: ShownClient; requested: Scope[]; resource: string };

async function pendingOf(provider: Provider, ctx: AppContext, publicUrl: string): Promise<Pending> {
  let details: Awaited<ReturnType<Provider['interactionDetails']>>;
  try {
    details = await provider.interactionDetails(ctx.req, ctx.res);
  } catch {
    // No interaction cookie (another browser, an old link) or one whose authorization ended.
    throw new ConsoleRefusal('not_found', 'no live authorization for this browser');
  }
  const uid = (ctx as AppContext & { params: Record<string, string> }).params.uid;
  if (details.uid !== uid) throw new ConsoleRefusal('not_found', 'authorization of another page');
  const param = (name: string) => {
    const value = details.params[name];
    return typeof value === 'string' ? value : '';
  };
  const clientId = param('client_id');
  const client = await provider.Client.find(clientId);
  if (!client) throw new ConsoleRefusal('not_found', 'authorization of a client no longer known');
  const document = isDocumentClientId(clientId);
  const asked = param('scope').split(' ');
  const resource =
    typeof details.params.resource === 'string' ? details.params.resource : mcpResource(publicUrl);
  return {
    uid: details.uid,
    client: {
      id: clientId,
      name: (client.clientName ?? '').trim() || 'An unnamed application',
      host: document ? new URL(clientId).hostname : 'registered client',
      kind: document ? 'document' : 'registered',
      redirectUri: param('redirect_uri') || (client.redirectUris?.[0] ?? ''),
    },
    requested: SCOPES.filter((s) => asked.includes(s)),
    resource,
  };
}

/**
 * The consent page's policy: the console's, except that its form may lead (through the authorization
 * server's redirects) back to the client's redirect URI, which browsers check against `form-action`.
 */
function consentPolicy(redirectUri: string) {
  const target = URL.parse(redirectUri);
  return target
    ? CONSOLE_CSP.replace("form-action 'self'", `form-action 'self' ${target.origin}`)
    : CONSOLE_CSP;
}

function consentBody(p: {
  pending: Pending;
  workspaces: { workspaceId: string; name: string; role: string }[];
  form: { workspace: string; scopes: readonly string[] };
  errors: FieldErrors;
  csrf: string;
}) {
  const c = p.pending.client;
  const who =
    c.kind === 'document'
      ? `<p><strong>${escape(c.name)}</strong> <span class="muted">from</span> <strong>${escape(c.host)}</strong></p>
<p class="muted">The name is the one its metadata document at ${escape(c.host)} gives; only the domain is proven.</p>`
      : `<p><strong>${escape(c.name)}</strong> <span class="tag bad">unverified</span></p>
<p class="muted">This application registered itself: nothing about its name or maker is proven. Connect it only if you started this from an application you trust.</p>`;
  const back = URL.parse(c.redirectUri);
  const workspaceField =
    p.workspaces.length === 1
      ? `<input type="hidden" name="workspace" value="${escape(p.workspaces[0]!.workspaceId)}"><p>Workspace: <strong>${escape(p.workspaces[0]!.name)}</strong> (you are ${escape(p.workspaces[0]!.role)})</p>`
      : selectField({
          name: 'workspace',
          label: 'Workspace',
          options: p.workspaces.map((w) => [w.workspaceId, `${w.name} (you are ${w.role})`] as const),
          value: p.form.workspace,
          errors: p.errors,
        });
  const offered = p.pending.requested.length ? p.pending.requested : [...SCOPES];
  return `<h1>Connect an assistant</h1>
<div class="card">${who}
<p>It asks to act as you in a workspace. Whatever you allow, it can never do more than your own role lets you, and you can disconnect it at any time on the workspace's API keys page.</p>
${formError(p.errors)}
<form method="post" action="/app/oauth/${escape(p.pending.uid)}" novalidate>${csrfField(p.csrf)}
${workspaceField}
${checkboxes({ name: 'scopes', legend: 'What it may do', options: offered, checked: p.form.scopes, errors: p.errors, hint: offered.map((s) => `${s}: ${SCOPE_TEXT[s]}`).join('. ') + '. Untick what it should not do.' })}
<p class="muted">After you decide, you go back to <strong>${escape(back ? back.host : c.redirectUri)}</strong>.</p>
<div class="actions"><button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button></div>
</form></div>`;
}

/**
 * The authorization server's consent step, where the member already is: the console. A browser not
 * signed in goes to sign in (with their passkey) and comes back here; the member picks the workspace
 * and narrows the scopes; Allow records the connection (a registered operation, as the member) and the
 * grant its tokens belong to, Deny answers the client `access_denied`. The POST is the console's: same
 * origin, CSRF token.
 */
export function consentRoutes(router: Router<RequestState>, kit: ConsoleKit) {
  const { deps } = kit;
  const provider = deps.authorizationServer;
  if (!provider) return;

  const render = (ctx: AppContext, status: number, body: string, redirectUri: string) =>
    sendPage(
      ctx,
      status,
      page(kit.frame(ctx), 'Connect an assistant', body, { narrow: true }),
      consentPolicy(redirectUri),
      CONSOLE_REFERRER,
    );

  const memberships = (userId: string) => workspacesOf(userData(deps.services), userId);

  router.get('/oauth/:uid', async (ctx) => {
    ctx.state.auditAction = 'oauth.consent';
    const pending = await pendingOf(provider, ctx, deps.publicUrl);
    ctx.state.auditClientId = pending.client.id.slice(0, 2000);
    const v = visitOf(ctx);
    if (!v.session) {
      setCookie(ctx, AUTHORIZE_COOKIE, pending.uid, 600);
      ctx.status = 303;
      return ctx.redirect('/app/sign-in');
    }
    const workspaces = await memberships(v.session.userId);
    if (workspaces.length === 0)
      throw new ConsoleRefusal('not_allowed', 'consent by a user who is no member');
    render(
      ctx,
      200,
      consentBody({
        pending,
        workspaces,
        form: {
          workspace: workspaces[0]!.workspaceId,
          scopes: pending.requested.length ? pending.requested : SCOPES,
        },
        errors: {},
        csrf: kit.frame(ctx).csrf,
      }),
      pending.client.redirectUri,
    );
  });

  router.post('/oauth/:uid', async (ctx) => {
    ctx.state.auditAction = 'oauth.consent';
    const pending = await pendingOf(provider, ctx, deps.publicUrl);
    ctx.state.auditClientId = pending.client.id.slice(0, 2000);
    const v = visitOf(ctx);
    if (!v.session) throw new ConsoleRefusal('not_allowed', 'consent without a session');
    const userId = v.session.userId;
    const form = v.form;
    const finish = async (result: Parameters<Provider['interactionResult']>[2]) => {
      const to = await provider.interactionResult(ctx.req, ctx.res, result, {
        mergeWithLastSubmission: false,
      });
      ctx.status = 303;
      ctx.redirect(to);
    };
    if (form.get('decision') !== 'allow') {
      ctx.state.auditOutcome = 'refused';
      ctx.state.auditReason = 'the member denied the authorization';
      return finish({
        error: 'access_denied',
        error_description: 'The member did not allow the connection.',
      });
    }
    const workspaces = await memberships(userId);
    const workspaceId = form.get('workspace') ?? '';
    const chosen = workspaces.find((w) => w.workspaceId === workspaceId);
    const offered: readonly string[] = pending.requested.length ? pending.requested : SCOPES;
    const scopes = SCOPES.filter((s) => offered.includes(s) && form.getAll('scopes').includes(s));
    const again = (errors: FieldErrors) =>
      render(
        ctx,
        422,
        consentBody({
          pending,
          workspaces,
          form: { workspace: workspaceId, scopes },
          errors,
          csrf: kit.frame(ctx).csrf,
        }),
        pending.client.redirectUri,
      );
    if (!chosen) {
      ctx.state.auditOutcome = 'refused';
      ctx.state.auditReason = `consent for a workspace the user is no member of: ${workspaceId.slice(0, 60)}`;
      return again({ workspace: 'Choose one of your workspaces.' });
    }
    if (scopes.length === 0) {
      ctx.state.auditOutcome = 'refused';
      ctx.state.auditReason = 'consent with no scope';
      return again({ scopes: 'Tick at least one thing it may do, or deny.' });
    }
    const role = await roleOf(new Data(deps.services.db.manager, chosen.workspaceId), userId);
    if (!role) throw new ConsoleRefusal('not_allowed', 'consent by a member removed meanwhile');
    v.member = { workspaceId: chosen.workspaceId, name: chosen.name, role };
    ctx.state.auditWorkspaceId = chosen.workspaceId;
    const grant = new provider.Grant({ accountId: userId, clientId: pending.client.id });
    grant.addResourceScope(pending.resource, scopes.join(' '));
    // What the member unticked is refused, not forgotten: the authorization goes on with the rest.
    const unticked = offered.filter((s) => !(scopes as readonly string[]).includes(s));
    if (unticked.length) grant.rejectResourceScope(pending.resource, unticked.join(' '));
    const grantId = await grant.save();
    try {
      await kit.run(ctx, operations.grantAssistantConnection, {
        memberId: userId,
        grantId,
        clientId: pending.client.id,
        clientName: pending.client.name,
        clientHost: pending.client.host,
        clientKind: pending.client.kind,
        scopes,
      });
    } catch (err) {
      await grant.destroy();
      return again(fieldErrors(err));
    }
    await finish({ login: { accountId: userId, amr: ['console'] }, consent: { grantId } });
  });
}
