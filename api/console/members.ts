import type Router from '@koa/router';
import { operations as identity } from '../../domain/identity';
import { ROLES } from '../../domain/kernel/permissions';
import type { AppContext, RequestState } from '../context';
import { escape } from '../pages/html';
import { fieldErrors, type ConsoleKit } from './door';
import { buttonForm, csrfField, formError, inputField, selectField, when, type FieldErrors } from './layout';
import { memberOf, visitOf } from './visit';

type MemberRow = { user_id: string; email: string; role: string; created_at: string };

const ROLE_OPTIONS = ROLES.map((r) => [r, r[0]!.toUpperCase() + r.slice(1)] as const);

/** Members: invite someone with a role, change a role, remove someone (each with its effects on keys and approvals). */
export function memberRoutes(router: Router<RequestState>, kit: ConsoleKit) {
  const { deps } = kit;
  const admin = memberOf(deps, 'admin');

  const page = async (
    ctx: AppContext,
    status: number,
    form: { email: string; role: string },
    errors: FieldErrors,
    notice?: string,
  ) => {
    const base = kit.base(ctx);
    const csrf = kit.frame(ctx).csrf;
    const me = visitOf(ctx).session!.userId;
    const members = (await kit.run(ctx, identity.listMembers, {})) as MemberRow[];
    const rows = members
      .map(
        (
          m,
          i,
        ) => `<tr><td data-label="Email">${escape(m.email)}${m.user_id === me ? ' <span class="tag">you</span>' : ''}</td>
<td data-label="Since">${when(m.created_at)}</td>
<td data-label="Role"><form method="post" action="${base}/members/role" class="actions">${csrfField(csrf)}<input type="hidden" name="email" value="${escape(m.email)}">
<label for="role-${i}" class="visually-hidden">Role of ${escape(m.email)}</label><select id="role-${i}" name="role">${ROLE_OPTIONS.map(([v, l]) => `<option value="${v}"${v === m.role ? ' selected' : ''}>${l}</option>`).join('')}</select>
<button type="submit" class="secondary small">Change</button></form></td>
<td class="actions-cell" data-label="">${buttonForm(`${base}/members/remove`, 'Remove', csrf, { style: 'danger', small: true, confirm: `Remove ${m.email}? Their keys stop working and their sessions end.`, fields: `<input type="hidden" name="email" value="${escape(m.email)}">` })}</td></tr>`,
      )
      .join('');
    kit.render(
      ctx,
      status,
      'Members',
      `<h1>Members</h1><p class="lede">A lower role or a removal takes effect at once: on the person's sessions, their keys and the requests they are waiting on.</p>
${notice ? `<div class="banner ok" role="status"><p>${escape(notice)}</p></div>` : ''}
<section class="card" aria-labelledby="members-h"><h2 id="members-h">People</h2>
<table class="stack"><thead><tr><th scope="col">Email</th><th scope="col">Since</th><th scope="col">Role</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>${rows}</tbody></table></section>
<section class="card" aria-labelledby="invite-h"><h2 id="invite-h">Invite someone</h2>
<p class="muted">They sign in at this console with their email address, then create a passkey.</p>
${formError(errors)}
<form method="post" action="${base}/members" novalidate>${csrfField(csrf)}
${inputField({ name: 'email', label: 'Email address', type: 'email', value: form.email, errors, required: true, autocomplete: 'off', extra: ' spellcheck="false" autocapitalize="none"' })}
${selectField({ name: 'role', label: 'Role', options: ROLE_OPTIONS, value: form.role, errors, hint: 'Viewers read; members work; admins also manage keys, webhooks and people.' })}
<button type="submit">Invite</button></form></section>`,
      { current: 'members' },
    );
  };

  /**
   * Runs a member change named by the form's email (and role): a refusal shows on the page beside its
   * field; done, the list is asked again (a reload sends nothing twice). Whoever changed their own
   * membership goes back to their workspaces, where it is read again.
   */
  const change = async (
    ctx: AppContext,
    run: (email: string, role: string) => Promise<unknown>,
    done: string,
  ) => {
    const f = visitOf(ctx).form;
    const email = (f.get('email') ?? '').trim();
    const role = f.get('role') ?? 'member';
    try {
      await run(email, role);
    } catch (err) {
      return page(ctx, 422, { email, role }, fieldErrors(err));
    }
    ctx.status = 303;
    const self = email.toLowerCase() === visitOf(ctx).session!.email;
    ctx.redirect(self ? '/app' : `${kit.base(ctx)}/members?done=${done}`);
  };

  router.get('/w/:workspaceId/members', admin, (ctx) => {
    const done = { added: 'Invited.', role: 'Role changed.', removed: 'Removed.' }[String(ctx.query.done)];
    return page(ctx, 200, { email: '', role: 'member' }, {}, done);
  });

  router.post('/w/:workspaceId/members', admin, (ctx) =>
    change(ctx, (email, role) => kit.run(ctx, identity.inviteMember, { email, role }), 'added'),
  );
  router.post('/w/:workspaceId/members/role', admin, (ctx) =>
    change(ctx, (email, role) => kit.run(ctx, identity.setMemberRole, { email, role }), 'role'),
  );
  router.post('/w/:workspaceId/members/remove', admin, (ctx) =>
    change(ctx, (email) => kit.run(ctx, identity.removeMember, { email }), 'removed'),
  );
}
