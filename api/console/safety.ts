import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context';
import { pagePolicy } from '../pages/security';

/** The session's cookie: its value is the session's secret (the row keeps only its SHA-256). */
export const SESSION_COOKIE = '__Host-session';
/** The browser's own random mark, set before it asks for a link or a passkey challenge: what binds them to it. */
export const SIGNIN_COOKIE = '__Host-signin';
/** A redeemed sign-in link's state, good only for enrolling a passkey (signed, bound to the browser's mark). */
export const ENROL_COOKIE = '__Host-enrol';
/**
 * An assistant's authorization waiting for this browser to sign in: its interaction's id, so signing in
 * leads back to its consent page (and nowhere else: only that page's path is ever built from it).
 */
export const AUTHORIZE_COOKIE = '__Host-authorize';

/**
 * `__Host-`: Secure, Path=/, no Domain, so no sibling host can set or read it; HttpOnly, so no script
 * can; SameSite=Lax, so another site's form cannot post with it. Browsers treat http://localhost as a
 * secure context, which keeps `npm run dev` working over http. A session cookie (no Max-Age): the row
 * decides how long it lives.
 */
export function setCookie(ctx: AppContext, name: string, value: string, maxAgeSeconds?: number): void {
  const age = maxAgeSeconds === undefined ? '' : `; Max-Age=${maxAgeSeconds}`;
  ctx.append('Set-Cookie', `${name}=${value}; Path=/; Secure; HttpOnly; SameSite=Lax${age}`);
}

export const clearCookie = (ctx: AppContext, name: string) => setCookie(ctx, name, '', 0);

/** A cookie the request carries, read from the header (only our own base64url values are meaningful). */
export function cookieOf(ctx: AppContext, name: string): string | undefined {
  for (const part of (ctx.get('Cookie') || '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_.-]{1,512}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** 32 random bytes, base64url: a cookie's secret. */
export const randomToken = () => randomBytes(32).toString('base64url');

const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest();

/**
 * The CSRF token of a browser's state: HMAC-SHA256(SECRETS_KEY, session id) once signed in; before
 * that, of the browser's sign-in mark (another label, so neither can stand for the other). Nothing is
 * stored: the server derives it again for each POST, and another site can neither read nor make it.
 */
export const csrfToken = (key: Buffer, subject: CsrfSubject): string =>
  hmac(key, subject.session ? `session:${subject.session}` : `signin:${subject.signin}`).toString(
    'base64url',
  );

/** Whose token a request must carry: its session's, or its sign-in mark's before it has a session. */
export type CsrfSubject = { session: string; signin?: undefined } | { session?: undefined; signin: string };

/** Compared in constant time: the comparison must not tell an attacker how much of a guess was right. */
export function sameToken(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A short-lived statement the server signed (`<payload>.<expires ms>.<mac>`), bound to the browser's
 * sign-in mark: a redeemed link's right to enrol a passkey. Another browser's cookie does not verify.
 */
export function enrolmentState(key: Buffer, payload: string, binding: string, expiresAt: number): string {
  const body = `${payload}.${expiresAt}`;
  return `${body}.${hmac(key, `enrol:${body}:${binding}`).toString('base64url')}`;
}

export function readEnrolmentState(
  key: Buffer,
  value: string | undefined,
  binding: string | undefined,
  now: number,
): string | undefined {
  if (!value || !binding) return undefined;
  const [payload, expires, mac] = value.split('.');
  if (!payload || !expires || !mac || !(Number(expires) > now)) return undefined;
  const expected = hmac(key, `enrol:${payload}.${expires}:${binding}`).toString('base64url');
  return sameToken(mac, expected) ? payload : undefined;
}

/** The console's policy, as the plan fixes it: its own scripts, stylesheet and images, and nothing else. */
export const CONSOLE_CSP = pagePolicy([
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
]);

/**
 * The console's pages tell only itself where a visitor came from: a browser sends `Origin: null` on a
 * POST from a `no-referrer` page, and every POST here must name PUBLIC_URL's origin. Nothing leaves for
 * another site (a link's token included).
 */
export const CONSOLE_REFERRER = 'same-origin';
