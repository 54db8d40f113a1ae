import type { Role } from '../../domain/kernel/permissions';
import { escape, pageShell } from '../pages/html';
import type { ConsoleAssets } from './assets';

/** The settings pages of a workspace, in the order its tabs show them; each needs an admin. */
export const SETTINGS = [
  { path: 'keys', label: 'API keys' },
  { path: 'endpoints', label: 'Webhooks' },
  { path: 'audit', label: 'Audit log' },
  { path: 'members', label: 'Members' },
] as const;
type SettingsPage = (typeof SETTINGS)[number]['path'];
/** A workspace's page, as its tabs mark the current one: its overview, its approvals inbox, a setting. */
export type WorkspacePage = SettingsPage | 'overview' | 'approvals';

/** What every page's frame needs: who is signed in, their CSRF token, and where they are. */
export type Frame = {
  assets: ConsoleAssets;
  csrf: string;
  /** Signed in: the header shows the account, the workspaces and the sign-out button. */
  email?: string;
  workspace?: { id: string; name: string; role: Role; current: WorkspacePage };
  /** Pages that run a passkey ceremony load the WebAuthn bundle too. */
  passkeys?: boolean;
  /** A request's page, where a decision is signed with a passkey: the WebAuthn bundle and the decision's script. */
  decide?: boolean;
  /** `/app` or `/app/me`, marked as the current page in the header. */
  here?: string;
};

export const isAdmin = (role: Role | null) => role === 'admin' || role === 'owner';

/** A hidden field with the CSRF token: every form that posts carries it. */
export const csrfField = (token: string) => `<input type="hidden" name="_csrf" value="${escape(token)}">`;

/** A form of one button (revoke, test, resend): POSTs with its token, asks first when `confirm` is said. */
export const buttonForm = (
  action: string,
  label: string,
  csrf: string,
  opts: {
    style?: 'secondary' | 'danger';
    small?: boolean;
    confirm?: string;
    fields?: string;
    /** The button's accessible name, where its text alone does not say what it acts on (a row's "Disconnect"). */
    ariaLabel?: string;
  } = {},
) =>
  `<form method="post" action="${escape(action)}" class="inline"${opts.confirm ? ` data-confirm="${escape(opts.confirm)}"` : ''}>${csrfField(csrf)}${opts.fields ?? ''}<button type="submit" class="${[opts.style, opts.small && 'small'].filter(Boolean).join(' ')}"${opts.ariaLabel ? ` aria-label="${escape(opts.ariaLabel)}"` : ''}>${escape(label)}</button></form>`;

/** A form's refusals, by the field they name (`_form` for the form as a whole). */
export type FieldErrors = Record<string, string>;

/** Ties an input to its hint and its error, so a screen reader reads them with it. */
export function described(name: string, errors: FieldErrors, hint?: string) {
  const ids = [hint && `${name}-hint`, errors[name] && `${name}-error`].filter(Boolean).join(' ');
  return {
    attrs: `${ids ? ` aria-describedby="${ids}"` : ''}${errors[name] ? ' aria-invalid="true"' : ''}`,
    hint: hint ? `<span class="hint" id="${name}-hint">${escape(hint)}</span>` : '',
    error: errors[name] ? `<p class="error" id="${name}-error">${escape(errors[name])}</p>` : '',
  };
}

/** A labelled text input with its hint and its error beside it. */
export function inputField(f: {
  name: string;
  label: string;
  errors: FieldErrors;
  value?: string;
  type?: 'text' | 'email' | 'url' | 'number';
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  extra?: string;
}) {
  const d = described(f.name, f.errors, f.hint);
  return `<div class="field"><label for="${f.name}">${escape(f.label)}</label>${d.hint}
<input type="${f.type ?? 'text'}" id="${f.name}" name="${f.name}" value="${escape(f.value ?? '')}"${f.required ? ' required' : ''}${f.autocomplete ? ` autocomplete="${f.autocomplete}"` : ''}${f.extra ?? ''}${d.attrs}>${d.error}</div>`;
}

/** A group of checkboxes under one legend, with the group's error under it. */
export function checkboxes(f: {
  name: string;
  legend: string;
  options: readonly string[];
  checked: readonly string[];
  errors: FieldErrors;
  hint?: string;
}) {
  const d = described(f.name, f.errors, f.hint);
  const boxes = f.options
    .map(
      (o, i) =>
        `<label class="check" for="${f.name}-${i}"><input type="checkbox" id="${f.name}-${i}" name="${f.name}" value="${escape(o)}"${f.checked.includes(o) ? ' checked' : ''}> <span>${escape(o)}</span></label>`,
    )
    .join('');
  return `<fieldset${d.attrs}><legend>${escape(f.legend)}</legend>${d.hint}<div class="checks">${boxes}</div>${d.error}</fieldset>`;
}

/** A select with its label, hint and error. */
export function selectField(f: {
  name: string;
  label: string;
  options: readonly (readonly [value: string, label: string])[];
  value?: string;
  errors: FieldErrors;
  hint?: string;
}) {
  const d = described(f.name, f.errors, f.hint);
  const options = f.options
    .map(([v, l]) => `<option value="${escape(v)}"${v === f.value ? ' selected' : ''}>${escape(l)}</option>`)
    .join('');
  return `<div class="field"><label for="${f.name}">${escape(f.label)}</label>${d.hint}<select id="${f.name}" name="${f.name}"${d.attrs}>${options}</select>${d.error}</div>`;
}

/** The refusal of the form as a whole, when it names no field. */
export const formError = (errors: FieldErrors) =>
  errors._form ? `<div class="banner bad" role="alert"><p>${escape(errors._form)}</p></div>` : '';

/** A time as people read it in a list, in UTC (the console knows no one's time zone). */
export const when = (iso: string | Date | null | undefined) => {
  if (!iso) return '—';
  const s = typeof iso === 'string' ? iso : iso.toISOString();
  return `<time datetime="${escape(s)}">${escape(s.slice(0, 16).replace('T', ' '))} UTC</time>`;
};

const current = (yes: boolean) => (yes ? ' aria-current="page"' : '');

function header(f: Frame) {
  if (!f.email)
    return `<header class="top"><div class="top-inner"><a class="brand" href="/app">Lead console</a></div></header>`;
  return `<header class="top"><div class="top-inner"><a class="brand" href="/app">Lead console</a>
<nav aria-label="Account"><ul><li><a href="/app"${current(f.here === '/app')}>Workspaces</a></li>
<li><a href="/app/me"${current(f.here === '/app/me')}>${escape(f.email)}</a></li>
<li><form method="post" action="/app/sign-out">${csrfField(f.csrf)}<button type="submit">Sign out</button></form></li></ul></nav>
</div></header>${workspaceTabs(f)}`;
}

function workspaceTabs(f: Frame) {
  const w = f.workspace;
  if (!w) return '';
  const base = `/app/w/${w.id}`;
  const tabs = [
    `<li><a href="${base}"${current(w.current === 'overview')}>${escape(w.name)}</a></li>`,
    // Who may decide approval requests (admins and owners) has an inbox of them.
    ...(isAdmin(w.role)
      ? [`<li><a href="${base}/approvals"${current(w.current === 'approvals')}>Approvals</a></li>`]
      : []),
    ...(isAdmin(w.role)
      ? SETTINGS.map(
          (s) => `<li><a href="${base}/${s.path}"${current(w.current === s.path)}>${s.label}</a></li>`,
        )
      : []),
  ];
  return `<nav class="tabs" aria-label="Workspace"><ul>${tabs.join('')}</ul></nav>`;
}

/**
 * A console page: the skip link, the header (and the workspace's tabs), the page in <main>, and only
 * files from /app/assets/ (the policy allows nothing inline). The CSRF token is also in a <meta> for
 * the script's JSON posts.
 */
export function page(f: Frame, title: string, body: string, opts: { narrow?: boolean } = {}) {
  const scripts = [
    ...(f.passkeys || f.decide ? [f.assets.scripts.webauthn] : []),
    f.assets.scripts.console,
    ...(f.decide ? [f.assets.scripts.decide] : []),
  ].map((src) => `<script src="${escape(src)}" defer></script>`);
  return pageShell({
    title: f.workspace ? `${title} · ${f.workspace.name}` : `${title} · Lead console`,
    head: `
<meta name="csrf-token" content="${escape(f.csrf)}">
<link rel="stylesheet" href="${escape(f.assets.stylesheet)}">
${scripts.join('\n')}`,
    body: `<a class="skip" href="#main">Skip to content</a>
${header(f)}
<main id="main" tabindex="-1"${opts.narrow ? ' class="narrow"' : ''}>
${body}
</main>`,
  });
}

const REFUSALS = {
  not_allowed: ['Not allowed', 'You cannot do this here.'],
  not_found: ['Not found', 'There is nothing here, or you cannot see it.'],
  link_not_valid: [
    'This link is not valid',
    'Ask for a new sign-in link from this browser; a link works once, for 15 minutes.',
  ],
  failed: ['Something went wrong', 'Please try again in a few minutes.'],
} as const;

/** The pages that refuse: one sentence each, never why (the audit row says why). */
export const refusalPage = (f: Frame, kind: keyof typeof REFUSALS) => {
  const [title, text] = REFUSALS[kind];
  return page(
    f,
    title,
    `<h1>${title}</h1><p>${text}</p><p><a href="${f.email ? '/app' : '/app/sign-in'}">${f.email ? 'Back to your workspaces' : 'Go to sign-in'}</a></p>`,
    { narrow: true },
  );
};
