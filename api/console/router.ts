import Router from '@koa/router';
import type { RequestState } from '../context';
import { escape } from '../pages/html';
import { accountRoutes } from './account';
import { approvalRoutes } from './approvals';
import { consoleAssets } from './assets';
import { auditRoutes } from './audit-log';
import { consoleFrame, consoleKit } from './door';
import { endpointRoutes } from './endpoints';
import { keyRoutes } from './keys';
import { SETTINGS, isAdmin } from './layout';
import { memberRoutes } from './members';
import { consentRoutes } from './oauth-consent';
import { signInRoutes } from './sign-in';
import { ConsoleRefusal, checkPost, loadVisit, memberOf, visitOf, type ConsoleDeps } from './visit';

export type { ConsoleDeps } from './visit';

const SETTING_TEXT: Record<(typeof SETTINGS)[number]['path'], string> = {
  keys: 'Create, list and revoke the keys your software calls the API with.',
  endpoints: 'Where events are sent, their delivery logs, tests and secrets.',
  audit: 'Every request and change, with the reason for each refusal.',
  members: 'Invite people, change their roles, remove them.',
};

/**
 * The console: the people's door, at /app. Server-rendered pages that work without JavaScript (the
 * passkey ceremonies aside), each action a registered operation run as the signed-in member with their
 * live role. Every answer carries the pages' headers under the console's policy; every POST comes from
 * PUBLIC_URL's origin with its CSRF token; every request is audited as door `console`.
 */
export function consoleRouter(deps: ConsoleDeps) {
  const assets = consoleAssets();
  const kit = consoleKit(deps, assets);
  const router = new Router<RequestState>({ prefix: '/app' });
  router.use(consoleFrame(kit), loadVisit(deps), checkPost(deps));

  router.get('/assets/:name', (ctx) => {
    const file = assets.get(ctx.params.name!);
    if (!file) throw new ConsoleRefusal('not_found', 'no such asset');
    ctx.type = file.type;
    ctx.body = file.body;
  });

  signInRoutes(router, kit);
  accountRoutes(router, kit);
  consentRoutes(router, kit);

  router.get('/w/:workspaceId', memberOf(deps, 'viewer'), (ctx) => {
    const m = visitOf(ctx).member!;
    const base = kit.base(ctx);
    const cards = isAdmin(m.role)
      ? `<div class="grid two">${SETTINGS.map(
          (s) =>
            `<section class="card"><h2><a href="${base}/${s.path}">${s.label}</a></h2><p class="muted">${SETTING_TEXT[s.path]}</p></section>`,
        ).join('')}</div>`
      : '<div class="card"><p>The settings of this workspace are for its admins.</p></div>';
    kit.render(
      ctx,
      200,
      m.name,
      `<h1>${escape(m.name)}</h1><p class="lede">You are ${m.role === 'admin' || m.role === 'owner' ? 'an' : 'a'} ${escape(m.role)} here.</p>${cards}`,
    );
  });
  approvalRoutes(router, kit);
  keyRoutes(router, kit);
  endpointRoutes(router, kit);
  auditRoutes(router, kit);
  memberRoutes(router, kit);

  // Anything else under /app: the console's own "not found" page, never the API's JSON.
  router.all('/*rest', () => {
    throw new ConsoleRefusal('not_found', 'no such console page');
  });
  return router;
}
