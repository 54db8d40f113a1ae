import type Router from '@koa/router';
import {
  endSession,
  passkeysOf,
  sessionsOf,
  workspacesOf,
  type PasskeyView,
  type SessionView,
} from '../../domain/identity';
import type { RequestState } from '../context';
import { escape } from '../pages/html';
import type { ConsoleKit } from './door';
import { buttonForm, when } from './layout';
import { SESSION_COOKIE, clearCookie } from './safety';
import { ConsoleRefusal, signedIn, userData, visitOf } from './visit';

/** The signed-in person's own pages: their workspaces, and their sessions and passkeys. */
export function accountRoutes(router: Router<RequestState>, kit: ConsoleKit) {
  const { services } = kit.deps;

  // One workspace: straight to it. The list is read live, so a removal shows at once.
  router.get('/', signedIn, async (ctx) => {
    const session = visitOf(ctx).session!;
    const workspaces = await workspacesOf(userData(services), session.userId);
    if (workspaces.length === 1) return ctx.redirect(`/app/w/${workspaces[0]!.workspaceId}`);
    const items = workspaces
      .map(
        (w) =>
          `<li><a href="/app/w/${escape(w.workspaceId)}">${escape(w.name)}</a> <span class="tag">${escape(w.role)}</span></li>`,
      )
      .join('');
    kit.render(
      ctx,
      200,
      'Your workspaces',
      `<h1>Your workspaces</h1><div class="card">${
        items
          ? `<ul class="list">${items}</ul>`
          : '<p>You are not a member of any workspace. Ask a workspace admin to invite you.</p>'
      }</div>`,
      { here: '/app' },
    );
  });

  router.get('/me', signedIn, async (ctx) => {
    const session = visitOf(ctx).session!;
    const [sessions, passkeys] = await Promise.all([
      sessionsOf(userData(services), session.userId),
      passkeysOf(userData(services), session.userId),
    ]);
    const csrf = kit.frame(ctx).csrf;
    const now = new Date();
    // Live ones only: an ended or expired session is history, and the operator's list keeps it.
    const sessionRows = sessions
      .filter((s) => !s.endedAt && s.expiresAt > now)
      .map((s) => sessionRow(s, s.id === session.id, csrf))
      .join('');
    const passkeyItems = passkeys.map(passkeyItem).join('');
    kit.render(
      ctx,
      200,
      'Your account',
      `<h1>Your account</h1><p class="lede">Signed in as ${escape(session.email)}.</p>
<section class="card" aria-labelledby="sessions-h"><h2 id="sessions-h">Where you are signed in</h2>
<p class="muted">A session ends after 30 minutes without use or 12 hours after sign-in. Revoke one you do not recognise.</p>
<table class="stack"><thead><tr><th scope="col">Started</th><th scope="col">Last seen</th><th scope="col">Ends</th><th scope="col">From</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${sessionRows}</tbody></table></section>
<section class="card" aria-labelledby="passkeys-h"><h2 id="passkeys-h">Your passkeys</h2>
${passkeyItems ? `<ul class="list">${passkeyItems}</ul>` : '<p>No passkeys yet.</p>'}
<p class="actions"><a class="button secondary" href="/app/enrol">Add a passkey</a></p></section>`,
      { here: '/app/me' },
    );
  });

  // Only one's own sessions: another's id answers as one that does not exist.
  router.post('/me/sessions/:id/revoke', signedIn, async (ctx) => {
    ctx.state.auditAction = 'console.session.revoke';
    const session = visitOf(ctx).session!;
    const mine = await sessionsOf(userData(services), session.userId);
    const target = mine.find((s) => s.id === ctx.params.id);
    if (!target) throw new ConsoleRefusal('not_found', `session ${ctx.params.id} is not one of the user's`);
    await endSession(userData(services), target.id, target.id === session.id ? 'signed_out' : 'revoked');
    ctx.status = 303;
    if (target.id === session.id) {
      clearCookie(ctx, SESSION_COOKIE);
      return ctx.redirect('/app/sign-in');
    }
    ctx.redirect('/app/me');
  });
}

function sessionRow(s: SessionView, current: boolean, csrf: string) {
  return `<tr><td data-label="Started">${when(s.createdAt)}${current ? ' <span class="tag ok">this browser</span>' : ''}</td>
<td data-label="Last seen">${when(s.lastSeenAt)}</td><td data-label="Ends">${when(s.expiresAt)}</td>
<td data-label="From">${escape(s.ip ?? '—')}<br><span class="muted">${escape((s.userAgent ?? '').slice(0, 120))}</span></td>
<td class="actions-cell" data-label="">${buttonForm(`/app/me/sessions/${s.id}/revoke`, current ? 'Sign out' : 'Revoke', csrf, { style: 'danger', small: true })}</td></tr>`;
}

const passkeyItem = (p: PasskeyView) =>
  `<li><span><strong>${escape(p.name)}</strong><br><span class="muted">Created ${when(p.createdAt)} · last used ${when(p.lastUsedAt)}${p.backedUp ? ' · synced' : ''}</span></span></li>`;
