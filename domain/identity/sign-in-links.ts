import { createHash } from 'node:crypto';
import { Data } from '../kernel/data';
import { DomainError } from '../kernel/errors';
import { clientIp, fingerprintOf, looksLikeToken, newToken } from './bearer-tokens';
import { sameFingerprint } from './keys';
import { signInLinks, type SignInLimits } from './repository/sign-in-links';

/** How long a sign-in link may be used. */
const SIGN_IN_LINK_MINUTES = 15;

/**
 * Requests for a link: 5 per address and 20 per client address in any 15 minutes, counted in
 * PostgreSQL so every API process shares them. Requests for addresses that are nobody's count too: the
 * answer must be the same whether the address is a member's or not.
 */
const SIGN_IN_LIMITS: SignInLimits = { windowMinutes: 15, perAddress: 5, perIp: 20 };

/**
 * The fingerprint a requested address is counted under: its SHA-256, never the address, so the log of
 * requests holds no address that was only typed into a form.
 */
const addressFingerprint = (email: string) =>
  createHash('sha256').update(`sign-in:${email}`, 'utf8').digest();

/**
 * Asks for a one-time sign-in link for the member with this address, bound to the browser asking (its
 * `__Host-signin` cookie, `browserBinding`): the token, which the caller mails (`queueMemberMail`), or
 * why none was made. Counted against the limits first, known address or not; the page answers the same
 * either way.
 */
export async function requestSignInLink(
  data: Data,
  r: { email: string; browserBinding: string; ip: string | null },
  now: Date,
): Promise<{ token: string; userId: string } | { refused: 'unknown' | 'too_many' }> {
  if (!looksLikeToken(r.browserBinding))
    throw new DomainError('invalid_request', 'This browser has no sign-in binding.', {
      field: 'browserBinding',
    });
  const email = r.email.trim().toLowerCase();
  const ip = clientIp(r.ip);
  return data.manager.transaction(async (m) => {
    const links = signInLinks(new Data(m, undefined));
    if (!(await links.admitRequest(addressFingerprint(email), ip, now, SIGN_IN_LIMITS)))
      return { refused: 'too_many' as const };
    const userId = await links.memberNamed(email);
    if (!userId) return { refused: 'unknown' as const };
    const token = newToken();
    await links.create({
      user_id: userId,
      token_fingerprint: fingerprintOf(token),
      browser_fingerprint: fingerprintOf(r.browserBinding),
      created_at: now,
      expires_at: new Date(now.getTime() + SIGN_IN_LINK_MINUTES * 60_000),
      ip,
    });
    return { token, userId };
  });
}

/**
 * Why a sign-in link did not sign anyone in: no link has this token, another browser presented it, it
 * was used already, it is 15 minutes old, or its user is no member anywhere now. The door writes it to
 * its audit row and tells the person only that the link is not valid.
 */
export type LinkRefusal = 'unknown' | 'another_browser' | 'used' | 'expired' | 'not_a_member';

/**
 * Uses a sign-in link, once, from the browser that asked for it, within 15 minutes, while its user is a
 * member somewhere: the user it proves, or why not. A link presented by another browser stays unused
 * (its rightful browser may still use it).
 */
export async function redeemSignInLink(
  data: Data,
  r: { token: string; browserBinding: string },
  now: Date,
): Promise<{ userId: string } | { refused: LinkRefusal }> {
  if (!looksLikeToken(r.token)) return { refused: 'unknown' };
  const links = signInLinks(data);
  const link = await links.named(fingerprintOf(r.token));
  if (!link) return { refused: 'unknown' };
  if (
    !looksLikeToken(r.browserBinding) ||
    !sameFingerprint(link.browser_fingerprint, fingerprintOf(r.browserBinding))
  )
    return { refused: 'another_browser' };
  if (link.used_at) return { refused: 'used' };
  if (link.expires_at.getTime() <= now.getTime()) return { refused: 'expired' };
  if (!link.member) return { refused: 'not_a_member' };
  // The use itself is one conditional UPDATE: of two redeems racing past the checks above, one wins.
  const userId = await links.use(link.id, now);
  return userId ? { userId } : { refused: 'used' };
}
