import { createHash } from 'node:crypto';
import { money } from '../../domain/sales/documents';
import type { AppContext } from '../context';

/**
 * A quote's public page: server-rendered HTML that works without JavaScript (two plain forms), reads
 * on a phone (one column, a viewport, large targets), and loads nothing from anywhere: the one inline
 * stylesheet is allowed by its hash in a Content-Security-Policy that allows nothing else.
 */

/** What the page shows; the view_page, accept and decline operations answer it. */
export type QuotePageModel = {
  seller: string;
  number: string;
  revision: number;
  status: string;
  currency: string;
  lines: { description: string; quantity: number; unit_amount: number; amount: number }[];
  total: number;
  recurring_interval: string | null;
  valid_until: string;
  document_sha256: string;
  closed: string | null;
  consent_text: string;
  signed_by: string | null;
};

const STYLE = `*{box-sizing:border-box}body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;padding:1rem;color:#1d1d1f;background:#f5f5f7}
main{max-width:44rem;margin:0 auto;background:#fff;border-radius:.75rem;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
h1{font-size:1.4rem;margin:.2rem 0 1rem}.seller{color:#555;margin:0}table{width:100%;border-collapse:collapse;margin:1rem 0}
th,td{text-align:left;padding:.5rem .25rem;border-bottom:1px solid #e5e5e5;vertical-align:top}td.n,th.n{text-align:right;white-space:nowrap}
tfoot td{font-weight:700;border-bottom:0}.per{display:block;font-weight:400;color:#555}.meta{color:#555}.banner{padding:.75rem 1rem;border-radius:.5rem;margin:1rem 0;background:#fff4e5;border:1px solid #f0c36d}
.banner.ok{background:#e8f6ec;border-color:#7cc48f}.error{color:#b00020;font-weight:600}label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=text]{width:100%;font:inherit;padding:.7rem;border:1px solid #999;border-radius:.4rem}.consent{display:flex;gap:.6rem;align-items:flex-start;font-weight:400}
.consent input{width:1.4rem;height:1.4rem;margin-top:.15rem;flex:none}button{font:inherit;width:100%;padding:.8rem 1rem;border-radius:.5rem;border:1px solid #1d1d1f;margin-top:1rem;cursor:pointer}
.accept{background:#1d1d1f;color:#fff}.decline{background:#fff;color:#1d1d1f}@media (min-width:40rem){body{padding:2rem}main{padding:2rem}button{width:auto}}`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** Nothing runs, nothing loads, nothing frames it; forms post only here. */
export const QUOTE_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const escape = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** The page's answer: no caching, no referrer (the token is in the URL), the policy above. */
export function sendPage(ctx: AppContext, status: number, html: string) {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Robots-Tag', 'noindex');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Content-Security-Policy', QUOTE_PAGE_CSP);
  ctx.body = html;
}

const layout = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escape(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>
`;

/** The quote, and while it can be signed, the accept and decline forms; `error` says what to fix. */
export function quotePage(
  m: QuotePageModel,
  action: string,
  opts: { error?: string; name?: string; consent?: boolean } = {},
): string {
  const price = (n: number) => escape(money(n, m.currency));
  // On its own line: beside the total it would widen the column past a phone's screen.
  const per = m.recurring_interval ? `<span class="per">per ${escape(m.recurring_interval)}</span>` : '';
  const rows = m.lines
    .map(
      (l) =>
        `<tr><td>${escape(l.description)}</td><td class="n">${escape(String(l.quantity))}</td><td class="n">${price(l.unit_amount)}</td><td class="n">${price(l.amount)}</td></tr>`,
    )
    .join('');
  const state =
    m.status === 'ACCEPTED'
      ? `<p class="banner ok" role="status">Accepted and signed by ${escape(m.signed_by ?? '')}. Thank you.</p>`
      : m.closed
        ? `<p class="banner" role="status">${escape(m.closed)}</p>`
        : '';
  const forms = m.closed
    ? ''
    : `<form method="post" action="${escape(action)}/accept">
<input type="hidden" name="document_sha256" value="${escape(m.document_sha256)}">
${opts.error ? `<p class="error" role="alert">${escape(opts.error)}</p>` : ''}
<label for="name">Your full name</label>
<input type="text" id="name" name="name" autocomplete="name" maxlength="200" value="${escape(opts.name ?? '')}">
<label class="consent"><input type="checkbox" name="consent" value="yes"${opts.consent ? ' checked' : ''}> <span>${escape(m.consent_text)}</span></label>
<button type="submit" class="accept">Accept and sign</button>
</form>
<form method="post" action="${escape(action)}/decline"><button type="submit" class="decline">Decline</button></form>`;
  return layout(
    `Quote ${m.number}`,
    `<p class="seller">${escape(m.seller)}</p>
<h1>Quote ${escape(m.number)}${m.revision > 1 ? ` <small>revision ${m.revision}</small>` : ''}</h1>
${state}
<table><thead><tr><th>Item</th><th class="n">Qty</th><th class="n">Price</th><th class="n">Amount</th></tr></thead>
<tbody>${rows}</tbody><tfoot><tr><td colspan="3">Total</td><td class="n">${price(m.total)}${per}</td></tr></tfoot></table>
<p class="meta">Valid until ${escape(m.valid_until)}. Document SHA-256: <code>${escape(m.document_sha256.slice(0, 16))}…</code></p>
${forms}`,
  );
}

export const quoteNotFoundPage = () =>
  layout(
    'Link not valid',
    `<h1>This link is not valid</h1><p>Check that you opened the whole link from the email, or ask the sender for a new one.</p>`,
  );

export const tooManyPage = () =>
  layout('Too many requests', `<h1>Too many requests</h1><p>Wait a minute, then try again.</p>`);
