import { createHash } from 'node:crypto';
import { money } from '../../domain/sales';
import type { AppContext } from '../context';
import { escape, pageShell } from '../pages/html';
import { pagePolicy, sendPage as sendAnyPage } from '../pages/security';

/**
 * A quote's public page: server-rendered HTML that works without JavaScript (two plain forms), reads
 * on a phone (one column, a viewport, large targets), prints as an A4 document, and loads nothing from
 * anywhere: the one inline stylesheet is allowed by its hash in a Content-Security-Policy that allows
 * nothing else.
 */

/** What the page shows; the view_page, accept and decline operations answer it. */
export type QuotePageModel = {
  /** From the workspace's seller profile; the name is the workspace's when the profile has none. */
  seller: { name: string; address: string | null; email: string | null; phone: string | null };
  /** The lead the quote is for. */
  customer: { name: string | null; company: string | null };
  number: string;
  revision: number;
  status: string;
  issued_on: string;
  currency: string;
  lines: { description: string; quantity: number; unit_amount: number; amount: number }[];
  total: number;
  recurring_interval: string | null;
  valid_until: string;
  terms_url: string | null;
  terms_text: string | null;
  document_sha256: string;
  closed: string | null;
  consent_text: string;
  signature: { name: string; signed_at: string; client_ip: string | null } | null;
};

/*
 * One column on a phone: below 36rem the lines table becomes one block per line (description, then
 * "qty × price" and the amount), so nothing is wider than the card; `overflow-wrap: anywhere` lets a
 * long word (a URL, a hash) break instead of pushing past it. Print is black on white on A4, without
 * the forms.
 */
const STYLE = `*{box-sizing:border-box}
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;padding:1rem;color:#1d1d1f;background:#f5f5f7}
main{max-width:44rem;margin:0 auto;background:#fff;border-radius:.75rem;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.08);overflow-wrap:anywhere}
h1{font-size:1.4rem;margin:.2rem 0 .25rem}h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:#555;margin:0 0 .25rem}
p{margin:0 0 .5rem}dl,dd{margin:0}dt{font-weight:600}.seller{color:#555;margin:0}
.facts{display:flex;flex-wrap:wrap;gap:0 1.5rem;color:#555}.facts div{display:flex;gap:.4rem}
.parties{display:grid;gap:1rem;margin:1.25rem 0}.party p{margin:0}.party .name{font-weight:600}.address,.terms-text{white-space:pre-line}
a{color:inherit}table{width:100%;border-collapse:collapse;margin:1rem 0}
th,td{text-align:left;padding:.5rem .25rem;border-bottom:1px solid #e5e5e5;vertical-align:top}td.n,th.n{text-align:right;white-space:nowrap}
tfoot td{font-weight:700;border-bottom:0}.per{display:block;font-weight:400;color:#555}
.terms{margin:1.25rem 0 1.5rem}.banner{padding:.75rem 1rem;border-radius:.5rem;margin:1rem 0;background:#fff4e5;border:1px solid #f0c36d}
.banner.ok{background:#e8f6ec;border-color:#7cc48f}.error{color:#b00020;font-weight:600}label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=text]{width:100%;font:inherit;padding:.7rem;border:1px solid #999;border-radius:.4rem}.consent{display:flex;gap:.6rem;align-items:flex-start;font-weight:400}
.consent input{width:1.4rem;height:1.4rem;margin-top:.15rem;flex:none}button{font:inherit;width:100%;padding:.8rem 1rem;border-radius:.5rem;border:1px solid #1d1d1f;margin-top:1rem;cursor:pointer}
.accept{background:#1d1d1f;color:#fff}.decline{background:#fff;color:#1d1d1f}
.details{margin-top:1.5rem;padding-top:1rem;border-top:1px solid #e5e5e5;font-size:.85rem;color:#555}
.details dl{margin-bottom:.5rem}.details dl div{display:flex;column-gap:1rem}.details dt{flex:0 0 10rem;white-space:nowrap}.details dd{min-width:0}code{font:.95em ui-monospace,Menlo,Consolas,monospace}
@media (max-width:35.99rem){.lines thead{display:none}.lines,.lines tbody,.lines tfoot{display:block}
.lines tr{display:flex;flex-wrap:wrap;align-items:baseline;gap:0 .5rem;padding:.6rem .25rem;border-bottom:1px solid #e5e5e5}
.lines td{display:block;padding:0;border:0}.lines td.d{flex:1 0 100%}.lines tbody td.q::after{content:" \\00d7"}
.lines td.a{margin-left:auto}.lines tfoot tr{border-bottom:0}.details dl div{display:block;margin-bottom:.25rem}}
@media (min-width:36rem){body{padding:2rem}main{padding:2rem}.parties{grid-template-columns:1fr 1fr}button{width:auto}}
@page{size:A4;margin:16mm 15mm}
@media print{*{color:#000!important;background:#fff!important;box-shadow:none!important}body{padding:0;font-size:10.5pt}
main{max-width:none;padding:0;border-radius:0}form,button{display:none!important}a{text-decoration:none}
.banner{border:1px solid #000}th,td,.details{border-color:#999!important}tr,.parties,.details{break-inside:avoid}}`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** Nothing runs, nothing loads, nothing frames it; forms post only here. */
const QUOTE_PAGE_CSP = pagePolicy([`style-src 'sha256-${STYLE_HASH}'`]);

/**
 * A public page's answer, with the pages' shared headers (api/pages/security.ts); `csp` is the quote
 * page's policy above unless a page gives its own.
 */
export function sendPage(ctx: AppContext, status: number, html: string, csp = QUOTE_PAGE_CSP) {
  sendAnyPage(ctx, status, html, csp);
}

const layout = (title: string, body: string) =>
  pageShell({ title, head: `<style>${STYLE}</style>`, body: `<main>${body}</main>` });

const dateTimeUtc = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

/** A `tel:` link takes the digits and a leading +, not the spacing that makes a number readable. */
const telHref = (phone: string) => `tel:${phone.replace(/[^\d+]/g, '')}`;

const parties = (m: QuotePageModel) => {
  const s = m.seller;
  const contact = [
    s.email && `<a href="mailto:${escape(s.email)}">${escape(s.email)}</a>`,
    s.phone && `<a href="${escape(telHref(s.phone))}">${escape(s.phone)}</a>`,
  ].filter(Boolean);
  const c = m.customer;
  return `<div class="parties"><section class="party from"><h2>From</h2>
<p class="name">${escape(s.name)}</p>${s.address ? `<p class="address">${escape(s.address)}</p>` : ''}${contact.map((l) => `<p>${l}</p>`).join('')}
</section>${
    c.name || c.company
      ? `<section class="party for"><h2>For</h2>${c.name ? `<p class="name">${escape(c.name)}</p>` : ''}${c.company ? `<p class="company">${escape(c.company)}</p>` : ''}</section>`
      : ''
  }</div>`;
};

/** The seller's terms, before the form that accepts the quote "and its terms". */
const terms = (m: QuotePageModel) =>
  m.terms_url
    ? `<section class="terms"><h2>Terms</h2><p>This quote is under the seller's terms: <a href="${escape(m.terms_url)}" rel="noopener noreferrer">${escape(m.terms_url)}</a></p></section>`
    : m.terms_text
      ? `<section class="terms"><h2>Terms</h2><div class="terms-text">${escape(m.terms_text)}</div></section>`
      : '';

/** The fingerprint of what was shown and, once signed, the signature's evidence as it was recorded. */
const details = (m: QuotePageModel) => {
  const row = (term: string, value: string) => `<div><dt>${term}</dt><dd>${value}</dd></div>`;
  const sig = m.signature;
  return `<section class="details"><h2>Document details</h2><dl>
${row('Document SHA-256', `<code>${escape(m.document_sha256)}</code>`)}${
    sig
      ? row('Signed by', escape(sig.name)) +
        row('Signed at', escape(dateTimeUtc(sig.signed_at))) +
        row('Signed from', escape(sig.client_ip ?? 'not known'))
      : ''
  }</dl>
<p>The SHA-256 is a fingerprint of this revision as shown: its number, lines, total and validity. Signing records it, so a later change cannot pass for what was signed.</p></section>`;
};

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
        `<tr><td class="d">${escape(l.description)}</td><td class="n q">${escape(String(l.quantity))}</td><td class="n p">${price(l.unit_amount)}</td><td class="n a">${price(l.amount)}</td></tr>`,
    )
    .join('');
  const state =
    m.status === 'ACCEPTED'
      ? `<p class="banner ok" role="status">Accepted and signed by ${escape(m.signature?.name ?? '')}. Thank you.</p>`
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
    `Quote ${m.number} – ${m.seller.name}`,
    `<p class="seller">${escape(m.seller.name)}</p>
<h1>Quote ${escape(m.number)}${m.revision > 1 ? ` <small>revision ${m.revision}</small>` : ''}</h1>
<dl class="facts"><div><dt>Issued</dt><dd>${escape(m.issued_on)}</dd></div><div><dt>Valid until</dt><dd>${escape(m.valid_until)}</dd></div></dl>
${state}
${parties(m)}
<table class="lines"><thead><tr><th>Item</th><th class="n">Qty</th><th class="n">Price</th><th class="n">Amount</th></tr></thead>
<tbody>${rows}</tbody><tfoot><tr><td colspan="3">Total</td><td class="n a">${price(m.total)}${per}</td></tr></tfoot></table>
${terms(m)}
${forms}
${details(m)}`,
  );
}

export const quoteNotFoundPage = () =>
  layout(
    'Link not valid',
    `<h1>This link is not valid</h1><p>Check that you opened the whole link from the email, or ask the sender for a new one.</p>`,
  );

export const tooManyPage = () =>
  layout('Too many requests', `<h1>Too many requests</h1><p>Wait a minute, then try again.</p>`);
