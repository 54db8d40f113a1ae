import type Router from '@koa/router';
import { operations as identity } from '../../domain/identity';
import { operations as oauth } from '../../domain/oauth';
import { SCOPES } from '../../domain/kernel/permissions';
import type { AppContext, RequestState } from '../context';
import { escape } from '../pages/html';
import { fieldErrors, type ConsoleKit } from './door';
import {
  buttonForm,
  checkboxes,
  csrfField,
  described,
  formError,
  inputField,
  when,
  type FieldErrors,
} from './layout';
import { memberOf, visitOf } from './visit';

type KeyRow = {
  id: string;
  name: string;
  prefix: string;
  owner_email?: string;
  scopes: string[];
  allowed_cidrs: string[];
  expires_at: string;
  revoked_at: string | null;
  last_used_at?: string | null;
};

/** What the create form holds: what was typed, so a refusal shows it again beside its error. */
type KeyForm = { name: string; scopes: string[]; expiresInDays: string; allowedCidrs: string };
const EMPTY: KeyForm = { name: '', scopes: [], expiresInDays: '90', allowedCidrs: '' };

const status = (k: Pick<KeyRow, 'revoked_at' | 'expires_at'>, now: Date) =>
  k.revoked_at
    ? '<span class="tag bad">revoked</span>'
    : new Date(k.expires_at) <= now
      ? '<span class="tag warn">expired</span>'
      : '<span class="tag ok">active</span>';

function keyTable(keys: KeyRow[], base: string, csrf: string, now: Date) {
  if (keys.length === 0) return '<p>No keys yet.</p>';
  const rows = keys
    .map(
      (k) => `<tr><td data-label="Name"><strong>${escape(k.name)}</strong></td>
<td data-label="Prefix"><code class="nowrap">${escape(k.prefix)}</code></td>
<td data-label="Owner">${escape(k.owner_email ?? '')}</td>
<td data-label="Scopes">${k.scopes.map((s) => `<span class="tag">${escape(s)}</span>`).join('')}${k.allowed_cidrs.length ? `<br><span class="muted">from ${escape(k.allowed_cidrs.join(', '))}</span>` : ''}</td>
<td data-label="Expires">${when(k.expires_at)}</td><td data-label="Last used">${k.last_used_at ? when(k.last_used_at) : 'never'}</td>
<td data-label="Status">${status(k, now)}</td>
<td class="actions-cell" data-label="">${k.revoked_at ? '' : buttonForm(`${base}/keys/${k.id}/revoke`, 'Revoke', csrf, { style: 'danger', small: true, confirm: `Revoke ${k.name}? Its next request is refused.` })}</td></tr>`,
    )
    .join('');
  return `<table class="stack"><caption class="muted">Newest first</caption><thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Owner</th><th scope="col">Scopes</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>${rows}</tbody></table>`;
}

type ConnectionRow = {
  id: string;
  client_id: string;
  client_name: string;
  client_host: string;
  client_kind: 'document' | 'registered';
  member_email: string;
  scopes: string[];
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
};

/** The assistants members connected over OAuth, beside the keys: each can be disconnected at once. */
function connectionTable(connections: ConnectionRow[], base: string, csrf: string, now: Date) {
  if (connections.length === 0)
    return '<p>No assistant is connected. A member connects one from the assistant (Claude, ChatGPT and others ask them to sign in here and allow it).</p>';
  const rows = connections
    .map(
      (
        c,
      ) => `<tr><td data-label="Assistant"><strong>${escape(c.client_name)}</strong><br><span class="muted">${c.client_kind === 'document' ? escape(c.client_host) : 'registered client <span class="tag warn">unverified</span>'}</span></td>
<td data-label="Acts as">${escape(c.member_email)}</td>
<td data-label="Scopes">${c.scopes.map((s) => `<span class="tag">${escape(s)}</span>`).join('')}</td>
<td data-label="Last used">${c.last_used_at ? when(c.last_used_at) : 'never'}</td>
<td data-label="Status">${status(c, now)}</td>
<td class="actions-cell" data-label="">${c.revoked_at ? '' : buttonForm(`${base}/keys/connections/${c.id}/revoke`, 'Disconnect', csrf, { style: 'danger', small: true, ariaLabel: `Disconnect ${c.client_name}`, confirm: `Disconnect ${c.client_name}? Its tokens stop working at once, and what it asked to do that still waits for approval is withdrawn.` })}</td></tr>`,
    )
    .join('');
  return `<table class="stack"><caption class="muted">Newest first</caption><thead><tr><th scope="col">Assistant</th><th scope="col">Acts as</th><th scope="col">Scopes</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>${rows}</tbody></table>`;
}

function createForm(action: string, csrf: string, form: KeyForm, errors: FieldErrors) {
  const cidrs = described(
    'allowedCidrs',
    errors,
    'One address or CIDR range a line, such as 203.0.113.7 or 2001:db8::/48. Empty: any address.',
  );
  return `<section class="card" aria-labelledby="new-key-h"><h2 id="new-key-h">Create a key</h2>
${formError(errors)}
<form method="post" action="${escape(action)}" novalidate>${csrfField(csrf)}
${inputField({ name: 'name', label: 'Name', value: form.name, errors, required: true, hint: 'What uses it, so you recognise it later: "CRM sync".', autocomplete: 'off' })}
${checkboxes({ name: 'scopes', legend: 'Scopes', options: SCOPES, checked: form.scopes, errors, hint: 'What the key may do. Nothing is granted unless you tick it; the key also acts with your role.' })}
${inputField({ name: 'expiresInDays', label: 'Expires in (days)', type: 'number', value: form.expiresInDays, errors, hint: '1 to 365.', extra: ' min="1" max="365" inputmode="numeric"' })}
<div class="field"><label for="allowedCidrs">Allowed addresses (optional)</label>${cidrs.hint}
<textarea id="allowedCidrs" name="allowedCidrs" rows="3" spellcheck="false"${cidrs.attrs}>${escape(form.allowedCidrs)}</textarea>${cidrs.error}</div>
<button type="submit">Create key</button></form></section>`;
}

/** API keys: created with chosen scopes (none ticked), listed without their secret, revoked at once. */
export function keyRoutes(router: Router<RequestState>, kit: ConsoleKit) {
  const { deps } = kit;
  const admin = memberOf(deps, 'admin');
  const page = async (
    ctx: AppContext,
    status: number,
    form: KeyForm,
    errors: FieldErrors,
    created?: { key: string; name: string },
  ) => {
    const base = kit.base(ctx);
    const keys = (await kit.run(ctx, identity.listApiKeys, {})) as KeyRow[];
    const connections = (await kit.run(ctx, oauth.listAssistantConnections, {})) as ConnectionRow[];
    const csrf = kit.frame(ctx).csrf;
    // Shown on this answer only: the script turns the history entry into a GET, so a reload lists the keys.
    const shown = created
      ? `<div class="banner ok" role="status" data-shown-once><p><strong>Key ${escape(created.name)} created.</strong> Copy it now: it is not shown again.</p>
<label for="new-key">Your new key</label><output id="new-key" class="secret">${escape(created.key)}</output></div>`
      : '';
    kit.render(
      ctx,
      status,
      'API keys',
      `<h1>API keys</h1><p class="lede">Keys let your software call the API. Each acts with its owner's live role.</p>
${shown}<section class="card" aria-labelledby="keys-h"><h2 id="keys-h">Keys</h2>${keyTable(keys, base, csrf, new Date())}</section>
${createForm(`${base}/keys`, csrf, form, errors)}
<section class="card" aria-labelledby="connections-h"><h2 id="connections-h">Assistant connections</h2>
<p class="muted">Assistants a member allowed to act as them over OAuth. Each does no more than its scopes and that member's live role allow.</p>
${connectionTable(connections, base, csrf, new Date())}</section>`,
      { current: 'keys' },
    );
  };

  router.get('/w/:workspaceId/keys', admin, (ctx) => page(ctx, 200, EMPTY, {}));

  router.post('/w/:workspaceId/keys', admin, async (ctx) => {
    const f = visitOf(ctx).form;
    const form: KeyForm = {
      name: f.get('name') ?? '',
      scopes: f.getAll('scopes'),
      expiresInDays: (f.get('expiresInDays') ?? '').trim(),
      allowedCidrs: f.get('allowedCidrs') ?? '',
    };
    const days = form.expiresInDays === '' ? 90 : Number(form.expiresInDays);
    if (!Number.isInteger(days))
      return page(ctx, 422, form, { expiresInDays: 'Enter a whole number of days, 1 to 365.' });
    try {
      const created = (await kit.run(ctx, identity.createApiKey, {
        ownerEmail: visitOf(ctx).session!.email,
        name: form.name,
        scopes: form.scopes,
        expiresInDays: days,
        allowedCidrs: form.allowedCidrs.split(/[\s,]+/).filter(Boolean),
      })) as { key: string; name: string };
      await page(ctx, 200, EMPTY, {}, created);
    } catch (err) {
      const errors = fieldErrors(err);
      await page(ctx, 422, form, 'ownerEmail' in errors ? { _form: errors.ownerEmail } : errors);
    }
  });

  router.post('/w/:workspaceId/keys/connections/:id/revoke', admin, async (ctx) => {
    await kit.run(ctx, oauth.revokeAssistantConnection, { id: ctx.params.id });
    ctx.status = 303;
    ctx.redirect(`${kit.base(ctx)}/keys`);
  });

  router.post('/w/:workspaceId/keys/:id/revoke', admin, async (ctx) => {
    await kit.run(ctx, identity.revokeApiKey, { id: ctx.params.id });
    ctx.status = 303;
    ctx.redirect(`${kit.base(ctx)}/keys`);
  });
}
