import { inReadingOrder, type ApprovalView, type ShownApproval } from '../../domain/approvals';
import { escape } from '../pages/html';
import { described, when } from './layout';

/** A key as the inbox names who asked: its name and prefix, and its owner. */
/** Who asked: a key, or an assistant connection (its client's name and host, and the member it acts as). */
export type AskingKey = {
  id: string;
  name: string;
  prefix: string;
  owner_email?: string;
  assistant?: boolean;
};

const TONE: Record<string, string> = {
  PENDING: 'warn',
  APPROVED: 'ok',
  EXECUTED: 'ok',
  FAILED: 'bad',
  REJECTED: 'bad',
  EXPIRED: '',
  CANCELLED: '',
};

const statusTag = (status: string) => `<span class="tag ${TONE[status] ?? ''}">${escape(status)}</span>`;

const people = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'person' : 'people'}`;

const none = '<span class="muted">none</span>';

/**
 * A snapshot's value as a person reads it, the way `approval show` prints it: records as a list of
 * names and values in reading order, lists of records numbered, lists of words joined, text as written
 * (placeholders such as {first_name} kept, line breaks too).
 */
function snapshotHtml(value: unknown): string {
  if (value === null || value === undefined) return none;
  if (typeof value === 'string') return `<span class="as-written">${escape(value)}</span>`;
  if (typeof value !== 'object') return escape(JSON.stringify(value));
  if (Array.isArray(value)) {
    if (value.length === 0) return none;
    if (value.every((v) => v === null || typeof v !== 'object')) return escape(value.map(String).join(', '));
    return `<ol class="snapshot">${value.map((v) => `<li>${snapshotHtml(v)}</li>`).join('')}</ol>`;
  }
  const entries = inReadingOrder(value as Record<string, unknown>);
  if (entries.length === 0) return none;
  return `<dl class="facts">${entries.map(([k, v]) => `<dt>${escape(k.replaceAll('_', ' '))}</dt><dd>${snapshotHtml(v)}</dd>`).join('')}</dl>`;
}

/** Who asked, as the inbox shows it: the key's prefix and name, and its owner. */
function askedBy(a: ApprovalView, keys: Map<string, AskingKey>) {
  const key = keys.get(a.requested_by.key_id);
  if (!key) return `<span class="muted">a key no longer listed</span>`;
  if (key.assistant)
    return `${escape(key.name)} <span class="muted">(${escape(key.prefix)})</span>${key.owner_email ? `<br><span class="muted">for ${escape(key.owner_email)}</span>` : ''}`;
  return `<code class="nowrap">${escape(key.prefix)}</code> ${escape(key.name)}${key.owner_email ? `<br><span class="muted">${escape(key.owner_email)}</span>` : ''}`;
}

function requestTable(rows: ApprovalView[], base: string, keys: Map<string, AskingKey>, pending: boolean) {
  const body = rows
    .map(
      (
        a,
      ) => `<tr><td data-label="Request"><a href="${base}/approvals/${a.id}">${escape(a.summary)}</a><br><code class="muted">${escape(a.operation)}</code></td>
<td data-label="Asked by">${askedBy(a, keys)}</td>
<td data-label="Asked">${when(a.created_at)}</td>
${pending ? `<td data-label="Expires">${when(a.expires_at)}</td>` : `<td data-label="Status">${statusTag(a.status)}</td>`}</tr>`,
    )
    .join('');
  return `<table class="stack"><caption class="muted">Newest first</caption><thead><tr><th scope="col">Request</th><th scope="col">Asked by</th><th scope="col">Asked</th><th scope="col">${pending ? 'Expires' : 'Status'}</th></tr></thead><tbody>${body}</tbody></table>`;
}

/** The inbox: what waits for a decision, newest first, and what was decided lately. */
export function inboxPage(p: {
  base: string;
  pending: ApprovalView[];
  decided: ApprovalView[];
  keys: Map<string, AskingKey>;
}) {
  return `<h1>Approvals</h1>
<p class="lede">What your assistants asked to do that waits for an admin or owner. Nothing runs until someone approves it with their passkey.</p>
<section class="card" aria-labelledby="waiting-h"><h2 id="waiting-h">Waiting for a decision (${p.pending.length})</h2>
${p.pending.length ? requestTable(p.pending, p.base, p.keys, true) : '<p>Nothing waits for a decision.</p>'}</section>
${p.decided.length ? `<section class="card" aria-labelledby="decided-h"><h2 id="decided-h">Lately</h2>${requestTable(p.decided, p.base, p.keys, false)}</section>` : ''}`;
}

/** Who asked and whether they still may, as `approval show` says it. */
function requester(a: ShownApproval) {
  const r = a.requester;
  const key =
    r.key_kind === 'assistant'
      ? `the assistant ${escape(r.key_name ?? '?')} (${escape(r.key_prefix ?? r.key_id)}, connection ${escape(r.key_state)})`
      : `key “${escape(r.key_name ?? '?')}” (<code class="nowrap">${escape(r.key_prefix ?? r.key_id)}</code>, ${escape(r.key_state)})`;
  const owner = `${r.key_kind === 'assistant' ? 'acting as' : 'owned by'} ${escape(r.owner_email ?? r.owner_user_id)} (${escape(r.owner_role ?? 'no longer a member')})`;
  const valid = r.still_valid
    ? '<span class="tag ok">still valid</span>'
    : `<span class="tag bad">no longer valid</span> ${escape(r.refusal ?? '')}: approving it will be refused`;
  return `${key}, ${owner}<br>${valid}`;
}

/** Whom it reaches: each member set as counted when asked, with its first names and addresses. */
function reach(a: ShownApproval) {
  const sets = Object.entries(a.members ?? {});
  if (sets.length === 0) return '';
  const parts = sets.map(([name, m]) => {
    const rest = m.count - m.sample.length;
    const sample = m.sample
      .map(
        (x) =>
          `<li>${x.name ? `${escape(x.name)} ` : ''}<span class="muted">&lt;${escape(x.address)}&gt;</span></li>`,
      )
      .join('');
    return `<h3>${escape(name.replaceAll('_', ' '))}: ${people(m.count)}</h3>
<p class="muted">As counted when it was asked: only they can be reached by it.</p>
${sample ? `<ul class="list">${sample}</ul>` : ''}${rest > 0 ? `<p class="muted">… and ${people(rest)} more.</p>` : ''}`;
  });
  return `<section class="card" aria-labelledby="reach-h"><h2 id="reach-h">Whom it reaches</h2>${parts.join('')}</section>`;
}

/** Since it was asked: the bound parts that changed (approving is then refused), or who left and joined. */
function changedSince(a: ShownApproval) {
  const changed = a.changed_since_requested;
  if (!changed) return '';
  if (changed.length > 0)
    return `<div class="banner bad" role="note"><p><strong>Changed since it was asked:</strong> ${escape(changed.join(', '))}. Approving it will fail and nothing will run: what you would approve is no longer what it would do. Reject it, or ask the assistant to ask again.</p></div>`;
  const moved = Object.entries(a.members_since_requested ?? {}).filter(([, c]) => c.left > 0 || c.joined > 0);
  if (moved.length === 0) return '<p class="muted">Unchanged since it was asked.</p>';
  return `<div class="banner warn" role="note">${moved
    .map(
      ([name, c]) =>
        `<p>${escape(name.replaceAll('_', ' '))} changed since it was asked: ${c.left} left, ${c.joined} joined. Approving it reaches only the ${people(c.still)} counted who still qualify${c.joined > 0 ? `, and leaves out the ${c.joined} who joined` : ''}.</p>`,
    )
    .join('')}</div>`;
}

/** Who decided and how, how it ended, and the evidence: a passkey's credential, or an operator's word. */
function decision(a: ShownApproval, deciderEmail: string | undefined) {
  const who = deciderEmail ?? (a.decided_by ? `a former member (${a.decided_by})` : undefined);
  const how =
    a.decided_via === 'passkey'
      ? `with their passkey (credential <code>${escape(a.decided_credential ?? '')}</code>)`
      : a.decided_via === 'operator'
        ? `<strong>OPERATOR-ASSERTED</strong> by ${escape(a.operator_asserted?.os_user ?? '?')} on ${escape(a.operator_asserted?.host ?? '?')} at the admin CLI, not proven by the member`
        : a.decided_by
          ? 'how was not recorded (decided before decisions kept their evidence)'
          : '';
  const ended: Record<string, string> = {
    EXECUTED: '<div class="banner ok" role="status"><p><strong>Approved, and done.</strong></p></div>',
    FAILED: `<div class="banner bad" role="status"><p><strong>Approved, but it did not run:</strong> ${escape(a.reason ?? a.error?.message ?? '')}</p></div>`,
    REJECTED: '<div class="banner" role="status"><p><strong>Rejected.</strong> It never runs.</p></div>',
    APPROVED: '<div class="banner" role="status"><p><strong>Approved</strong>: it is running.</p></div>',
    EXPIRED:
      '<div class="banner" role="status"><p><strong>Expired</strong>: nobody decided in time; it never runs.</p></div>',
    CANCELLED: `<div class="banner" role="status"><p><strong>Withdrawn</strong>: ${escape(a.reason ?? '')}</p></div>`,
  };
  const facts = [
    who && ['Decided by', `${escape(who)}${a.decided_at ? `, ${when(a.decided_at)}` : ''}`],
    how && ['How', how],
    a.decided_digest && ['Approved snapshot', `<code>sha256:${escape(a.decided_digest)}</code>`],
    a.reason && a.status !== 'FAILED' && ['Reason', escape(a.reason)],
    a.finished_at && ['Finished', when(a.finished_at)],
  ].filter((f): f is [string, string] => !!f);
  const evidence = a.decided_assertion
    ? `<details><summary>The signed assertion</summary><pre class="json">${escape(JSON.stringify(a.decided_assertion, null, 2))}</pre></details>`
    : '';
  const outcome = a.outcome
    ? `<details><summary>What it answered</summary><pre class="json">${escape(JSON.stringify(a.outcome, null, 2))}</pre></details>`
    : '';
  return `<section class="card" aria-labelledby="decision-h"><h2 id="decision-h">Decision</h2>
${ended[a.status] ?? ''}${facts.length ? `<dl class="facts">${facts.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>` : ''}${evidence}${outcome}</section>`;
}

/**
 * The decision's form, while the request waits: an optional reason, Approve (unless this member may not
 * approve it) and Reject, each signed with a fresh passkey assertion by the page's script. Without it,
 * the page says a passkey is needed.
 */
function decide(a: ShownApproval, action: string) {
  const mayApprove = a.decider?.may_decide ?? true;
  const reason = described('reason', {}, 'Kept with the decision, and told to the assistant.');
  return `<section class="card" aria-labelledby="decide-h"><h2 id="decide-h">Decide</h2>
${mayApprove ? '' : `<div class="banner warn" role="note"><p>You may not approve it: ${escape(a.decider?.refusal ?? '')}. You may reject it.</p></div>`}
<div data-decide="${escape(action)}/decide" data-challenge="${escape(action)}/challenge" data-digest="${escape(a.effect?.digest ?? '')}" data-needs-webauthn hidden>
<div class="field"><label for="reason">Reason (optional)</label>${reason.hint}<textarea id="reason" name="reason" rows="2" maxlength="500"${reason.attrs}></textarea></div>
<p class="muted">Your passkey signs this request as shown here (<code>sha256:${escape((a.effect?.digest ?? '').slice(0, 12))}…</code>) and your decision.</p>
<div class="actions">${mayApprove ? '<button type="button" data-decision="approve">Approve</button>' : ''}<button type="button" class="danger" data-decision="reject">Reject</button></div>
<p class="muted" data-status role="status" aria-live="polite"></p>
</div>
<p data-without-webauthn class="banner warn">Deciding needs your passkey, and a passkey needs JavaScript and a browser that supports passkeys.</p>
</section>`;
}

/** A request's page: everything `approval show` shows, and the decision (or the form to make it). */
export function requestPage(p: { base: string; shown: ShownApproval; deciderEmail?: string }) {
  const a = p.shown;
  const action = `${p.base}/approvals/${a.id}`;
  const facts: [string, string][] = [
    ['Status', `${statusTag(a.status)}${a.status === 'PENDING' ? ` until ${when(a.expires_at)}` : ''}`],
    ['Asked', when(a.created_at)],
    ['Asked by', requester(a)],
    ['Operation', `<code>${escape(a.operation)}</code>`],
    ...(a.effect
      ? ([['Digest', `<code>sha256:${escape(a.effect.digest)}</code>`]] as [string, string][])
      : []),
    ...(a.second_person_required
      ? ([['Approvers', 'A second person: the owner of the key that asked may not approve it.']] as [
          string,
          string,
        ][])
      : []),
  ];
  const what = a.effect
    ? `<section class="card" aria-labelledby="what-h"><h2 id="what-h">What it does, as it stood when asked</h2>${snapshotHtml(a.effect.bound)}
${a.effect.counted ? `<h3>Counted when asked</h3>${snapshotHtml(a.effect.counted)}` : ''}${a.effect.shown ? `<h3>Also</h3>${snapshotHtml(a.effect.shown)}` : ''}</section>`
    : '<div class="banner bad" role="note"><p>No snapshot: it was asked before snapshots existed, and cannot run.</p></div>';
  return `<p><a href="${p.base}/approvals">All approvals</a></p>
<h1>${escape(a.summary)}</h1>
${a.status === 'PENDING' ? changedSince(a) : ''}
<section class="card" aria-labelledby="request-h"><h2 id="request-h">The request</h2>
<dl class="facts">${facts.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl></section>
${what}
${reach(a)}
${a.status === 'PENDING' ? decide(a, action) : decision(a, p.deciderEmail)}`;
}
