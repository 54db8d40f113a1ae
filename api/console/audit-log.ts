import type Router from '@koa/router';
import { operations as identity } from '../../domain/identity';
import type { RequestState } from '../context';
import { escape } from '../pages/html';
import { fieldErrors, type ConsoleKit } from './door';
import { inputField, selectField, when, type FieldErrors } from './layout';
import { memberOf } from './visit';

type AuditRow = {
  id: string;
  at: Date;
  door: string;
  action: string;
  outcome: string;
  reason: string | null;
  status: number | null;
  key_prefix: string | null;
  actor_user_id: string | null;
  client_ip: string | null;
  client_id: string | null;
};

const OUTCOMES = [
  ['', 'Any outcome'],
  ['allowed', 'Allowed'],
  ['refused', 'Refused'],
  ['failed', 'Failed'],
  ['parked', 'Waiting for approval'],
] as const;

const tone = (outcome: string) =>
  ({ allowed: 'ok', refused: 'bad', failed: 'bad', parked: 'warn' })[outcome] ?? '';

/**
 * The audit log: every request and change in the workspace, newest first, filtered by key, outcome and
 * action, with the refusal's real reason (the page is an admin's; nobody else sees a reason).
 */
export function auditRoutes(router: Router<RequestState>, kit: ConsoleKit) {
  const { deps } = kit;
  router.get('/w/:workspaceId/audit', memberOf(deps, 'admin'), async (ctx) => {
    const q = (name: string) => (typeof ctx.query[name] === 'string' ? ctx.query[name].trim() : '');
    const filter = { key: q('key'), outcome: q('outcome'), action: q('action') };
    const [keys, members] = await Promise.all([
      kit.run(ctx, identity.listApiKeys, {}) as Promise<{ id: string; name: string; prefix: string }[]>,
      kit.run(ctx, identity.listMembers, {}) as Promise<{ user_id: string; email: string }[]>,
    ]);
    let rows: AuditRow[] = [];
    let errors: FieldErrors = {};
    try {
      rows = await kit.run(ctx, identity.listAudit, {
        limit: 200,
        ...(filter.key && { keyId: filter.key }),
        ...(filter.outcome && { outcome: filter.outcome }),
        ...(filter.action && { action: filter.action }),
      });
    } catch (err) {
      const named = fieldErrors(err);
      errors = Object.fromEntries(Object.entries(named).map(([k, v]) => [k === 'keyId' ? 'key' : k, v]));
    }
    const emails = new Map(members.map((m) => [m.user_id, m.email]));
    const who = (r: AuditRow) =>
      r.client_id && r.actor_user_id
        ? `${escape(emails.get(r.actor_user_id) ?? 'a former member')} through the assistant <code>${escape(r.key_prefix ?? r.client_id)}</code>`
        : r.key_prefix
          ? `key <code>${escape(r.key_prefix)}</code>`
          : r.actor_user_id
            ? escape(emails.get(r.actor_user_id) ?? 'a former member')
            : escape(r.door === 'admin' ? 'the operator' : r.door);
    const body = rows
      .map(
        (
          r,
        ) => `<tr><td data-label="When">${when(r.at)}</td><td data-label="Who">${who(r)}<br><span class="muted">${escape(r.door)}${r.client_ip ? ` · ${escape(r.client_ip)}` : ''}</span></td>
<td data-label="Action"><code>${escape(r.action)}</code></td>
<td data-label="Outcome"><span class="tag ${tone(r.outcome)}">${escape(r.outcome)}</span>${r.status ? ` <span class="muted">${r.status}</span>` : ''}</td>
<td data-label="Reason">${r.reason ? escape(r.reason) : '<span class="muted">—</span>'}</td></tr>`,
      )
      .join('');
    const keyOptions = [
      ['', 'Any key or member'] as const,
      ...keys.map((k) => [k.id, `${k.name} (${k.prefix})`] as const),
    ];
    kit.render(
      ctx,
      200,
      'Audit log',
      `<h1>Audit log</h1><p class="lede">Every request and change in this workspace, allowed or refused, with the reason for each refusal.</p>
<form method="get" action="${kit.base(ctx)}/audit" class="card filters" role="search" aria-label="Filter the audit log">
${selectField({ name: 'key', label: 'Key', options: keyOptions, value: filter.key, errors })}
${selectField({ name: 'outcome', label: 'Outcome', options: OUTCOMES, value: filter.outcome, errors })}
${inputField({ name: 'action', label: 'Action', value: filter.action, errors, hint: 'An operation, such as key.create', autocomplete: 'off', extra: ' spellcheck="false"' })}
<div class="field"><button type="submit">Filter</button></div></form>
<section class="card" aria-labelledby="rows-h"><h2 id="rows-h">${rows.length === 200 ? 'The newest 200 rows' : `${rows.length} row${rows.length === 1 ? '' : 's'}`}</h2>
${body ? `<table class="stack"><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Outcome</th><th scope="col">Reason</th></tr></thead><tbody>${body}</tbody></table>` : '<p>Nothing matches.</p>'}</section>`,
      { current: 'audit' },
    );
  });
}
