import { escape } from '../pages/html';
import {
  buttonForm,
  checkboxes,
  csrfField,
  formError,
  inputField,
  selectField,
  when,
  type FieldErrors,
} from './layout';

export type EndpointRow = {
  id: string;
  url: string;
  events: string[];
  status: string;
  disabled_reason: string | null;
  consecutive_failures: number;
  signing_scheme: string;
  previous_secret_expires_at: string | null;
  created_at: string;
};

export type DeliveryRow = {
  id: string;
  event_id: string;
  type: string;
  status: string;
  attempts: number;
  response_status: number | null;
  next_attempt_at: string | null;
  created_at: string;
  attempt_log?: {
    number: number;
    at: string;
    duration_ms: number;
    response_status: number | null;
    error_class: string | null;
  }[];
};

export type EndpointForm = { url: string; events: string[]; scheme: string };

const SCHEMES = [
  ['service', 'Service signature (service-signature header)'],
  ['standard', 'Standard Webhooks (webhook-signature)'],
  ['both', 'Both'],
] as const;

const OVERLAPS = [
  ['0', 'Stop the old secret now'],
  ['1h', 'Keep the old one signing for 1 hour'],
  ['24h', 'Keep the old one signing for 24 hours'],
  ['7d', 'Keep the old one signing for 7 days'],
] as const;

const tone = (status: string) =>
  ({ SUCCEEDED: 'ok', ACTIVE: 'ok', EXHAUSTED: 'bad', DISABLED: 'bad', FAILED: 'warn', CANCELLED: 'warn' })[
    status
  ] ?? '';
const tag = (status: string) => `<span class="tag ${tone(status)}">${escape(status.toLowerCase())}</span>`;

/** The secret shown this once, with what to do with it; the script keeps a reload from showing it again. */
const secretBanner = (secret: string, what: string) => `<div class="banner ok" role="status" data-shown-once>
<p><strong>${escape(what)}</strong> Copy the signing secret now: it is not shown again. Your receiver checks each delivery's signature with it.</p>
<label for="new-secret">Signing secret</label><output id="new-secret" class="secret">${escape(secret)}</output></div>`;

/** The workspace's endpoints and the form that adds one. */
export function endpointsPage(p: {
  base: string;
  csrf: string;
  endpoints: EndpointRow[];
  eventTypes: string[];
  form: EndpointForm;
  errors: FieldErrors;
  created?: { id: string; secret: string };
}) {
  const rows = p.endpoints
    .map(
      (e) => `<tr><td data-label="URL"><a href="${p.base}/endpoints/${e.id}">${escape(e.url)}</a></td>
<td data-label="Events">${e.events.map((t) => `<span class="tag">${escape(t)}</span>`).join('')}</td>
<td data-label="Status">${tag(e.status)}</td><td data-label="Signing">${escape(e.signing_scheme)}</td></tr>`,
    )
    .join('');
  return `<h1>Webhooks</h1><p class="lede">Endpoints receive signed POSTs when events happen in this workspace.</p>
${p.created ? `${secretBanner(p.created.secret, 'Endpoint added.')}<p><a href="${p.base}/endpoints/${p.created.id}">Open the endpoint</a> to send a test event.</p>` : ''}
<section class="card" aria-labelledby="endpoints-h"><h2 id="endpoints-h">Endpoints</h2>
${rows ? `<table class="stack"><thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Signing</th></tr></thead><tbody>${rows}</tbody></table>` : '<p>No endpoints yet.</p>'}</section>
<section class="card" aria-labelledby="new-endpoint-h"><h2 id="new-endpoint-h">Add an endpoint</h2>
${formError(p.errors)}
<form method="post" action="${p.base}/endpoints" novalidate>${csrfField(p.csrf)}
${inputField({ name: 'url', label: 'URL', type: 'url', value: p.form.url, errors: p.errors, required: true, hint: 'An https address on the public internet.', autocomplete: 'off', extra: ' spellcheck="false"' })}
${checkboxes({ name: 'events', legend: 'Events', options: ['*', ...p.eventTypes], checked: p.form.events, errors: p.errors, hint: '* sends every event type, including ones added later.' })}
${selectField({ name: 'scheme', label: 'Signing scheme', options: SCHEMES, value: p.form.scheme, errors: p.errors })}
<button type="submit">Add endpoint</button></form></section>`;
}

const attempts = (d: DeliveryRow) =>
  (d.attempt_log ?? []).length === 0
    ? '<span class="muted">none yet</span>'
    : `<ol class="list">${d
        .attempt_log!.map(
          (a) =>
            `<li><span>#${a.number} ${when(a.at)}</span><span>${a.duration_ms} ms · ${a.response_status ?? escape(a.error_class ?? 'no answer')}</span></li>`,
        )
        .join('')}</ol>`;

/** One endpoint: what it is, its actions, and its delivery log. */
export function endpointPage(p: {
  base: string;
  csrf: string;
  endpoint: EndpointRow;
  deliveries: DeliveryRow[];
  secret?: string;
  notice?: string;
  error?: string;
}) {
  const e = p.endpoint;
  const here = `${p.base}/endpoints/${e.id}`;
  const disabled =
    e.status === 'DISABLED'
      ? `<div class="banner bad"><p><strong>This endpoint is disabled.</strong> ${escape(e.disabled_reason ?? 'No reason was recorded.')}</p>
<div class="actions">${buttonForm(`${here}/enable`, 'Enable again', p.csrf)}</div></div>`
      : '';
  const rows = p.deliveries
    .map(
      (
        d,
      ) => `<tr><td data-label="Event"><code>${escape(d.type)}</code><br><span class="muted">${escape(d.event_id)}</span></td>
<td data-label="Created">${when(d.created_at)}</td><td data-label="Status">${tag(d.status)}${d.next_attempt_at ? `<br><span class="muted">next ${when(d.next_attempt_at)}</span>` : ''}</td>
<td data-label="Attempts">${attempts(d)}</td>
<td class="actions-cell" data-label="">${['EXHAUSTED', 'CANCELLED'].includes(d.status) && e.status === 'ACTIVE' ? buttonForm(`${here}/deliveries/${d.id}/resend`, 'Resend', p.csrf, { style: 'secondary', small: true }) : ''}</td></tr>`,
    )
    .join('');
  return `<p><a href="${p.base}/endpoints">All endpoints</a></p>
<h1>${escape(e.url)}</h1>
${p.secret ? secretBanner(p.secret, 'Secret rotated.') : ''}
${p.notice ? `<div class="banner ok" role="status"><p>${escape(p.notice)}</p></div>` : ''}
${p.error ? `<div class="banner bad" role="alert"><p>${escape(p.error)}</p></div>` : ''}
${disabled}
<div class="grid two">
<section class="card" aria-labelledby="about-h"><h2 id="about-h">Endpoint</h2><dl class="facts">
<dt>Status</dt><dd>${tag(e.status)}</dd>
<dt>Events</dt><dd>${e.events.map((t) => `<span class="tag">${escape(t)}</span>`).join('')}</dd>
<dt>Signing</dt><dd>${escape(e.signing_scheme)}</dd>
<dt>Failures in a row</dt><dd>${e.consecutive_failures}</dd>
${e.previous_secret_expires_at ? `<dt>Old secret signs until</dt><dd>${when(e.previous_secret_expires_at)}</dd>` : ''}
<dt>Added</dt><dd>${when(e.created_at)}</dd></dl>
<div class="actions">${e.status === 'ACTIVE' ? buttonForm(`${here}/test`, 'Send test event', p.csrf) : ''}</div></section>
<section class="card" aria-labelledby="rotate-h"><h2 id="rotate-h">Rotate the signing secret</h2>
<form method="post" action="${here}/rotate">${csrfField(p.csrf)}
${selectField({ name: 'overlap', label: 'The old secret', options: OVERLAPS, value: '0', errors: {}, hint: 'While they overlap, each delivery carries both signatures, so your receiver can switch in its own time.' })}
<button type="submit" class="secondary">Rotate secret</button></form></section>
</div>
<section class="card" aria-labelledby="log-h"><h2 id="log-h">Delivery log</h2>
${rows ? `<table class="stack"><caption class="muted">Newest first; each attempt's time, duration and answer</caption><thead><tr><th scope="col">Event</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>${rows}</tbody></table>` : '<p>Nothing delivered yet. Send a test event to see one here.</p>'}
<p class="actions"><a class="button secondary" href="${here}">Refresh</a></p></section>`;
}
