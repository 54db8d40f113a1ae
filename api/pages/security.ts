import type { ParameterizedContext } from 'koa';

/**
 * A page's Content-Security-Policy: nothing by default, forms post only to this origin, never framed,
 * no <base>; `allow` adds what the page itself needs (its stylesheet, its scripts), in order.
 */
export const pagePolicy = (allow: readonly string[]): string =>
  ["default-src 'none'", ...allow, "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"].join(
    '; ',
  );

/**
 * Whose pages may learn where a visitor came from: nobody (a token in the URL must not travel), or
 * this site alone. A browser sends `Origin: null` on a form's POST from a `no-referrer` page, so a door
 * that checks the Origin of its POSTs (the console) needs `same-origin`.
 */
export type ReferrerPolicy = 'no-referrer' | 'same-origin';

/**
 * The headers every page answers with, whatever the door: no caching (a page may hold a secret shown
 * once, or a token in its URL), no referrer beyond the policy, no indexing, no sniffing, never framed,
 * and its Content-Security-Policy.
 */
export function setPageHeaders(
  ctx: ParameterizedContext,
  csp: string,
  referrer: ReferrerPolicy = 'no-referrer',
): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', referrer);
  ctx.set('X-Robots-Tag', 'noindex');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Content-Security-Policy', csp);
}

/** A page's answer: its status, its HTML and the headers above under its policies. */
export function sendPage(
  ctx: ParameterizedContext,
  status: number,
  html: string,
  csp: string,
  referrer: ReferrerPolicy = 'no-referrer',
): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  setPageHeaders(ctx, csp, referrer);
  ctx.body = html;
}
