import { createHmac, timingSafeEqual } from 'node:crypto';
import { UUID_PATTERN } from '../kernel/validate';
import type { PageLink } from './entities';

const ID_BYTES = 16;
const MAC_BYTES = 16;

/**
 * Personal page links (a quote's page, under `path`): the token is the page's subject id and an HMAC
 * of it, keyed per path from SECRETS_KEY, 43 characters of base64url. It is derived, never stored: the
 * service makes it again when the email leaves and checks it when the page is opened, so no row, event,
 * workflow history or log holds it, and a key that reads a message reads the words stored in its place
 * ("[link to quote Q-0012, revision 2]"), not the link. It cannot be turned into another page's: the
 * MAC covers the id, and each path has its own key.
 */
export const pageLinks = (secretsKey: Buffer, path: string) => {
  const key = createHmac('sha256', secretsKey).update(`page-links${path}`).digest();
  const macOf = (id: Buffer) => createHmac('sha256', key).update(id).digest().subarray(0, MAC_BYTES);
  const token = (subjectId: string) => {
    const id = Buffer.from(subjectId.replace(/-/g, ''), 'hex');
    return Buffer.concat([id, macOf(id)]).toString('base64url');
  };
  return {
    token,

    /** The page's link as people reach the service (`PUBLIC_URL`). */
    url: (publicUrl: string, subjectId: string) =>
      `${publicUrl.replace(/\/$/, '')}${path}/${token(subjectId)}`,

    /** The subject a token names, when its MAC is right (compared in constant time). */
    read: (presented: string): string | undefined => {
      if (!/^[A-Za-z0-9_-]{43}$/.test(presented)) return undefined;
      const raw = Buffer.from(presented, 'base64url');
      const id = raw.subarray(0, ID_BYTES);
      if (!timingSafeEqual(raw.subarray(ID_BYTES), macOf(id))) return undefined;
      const hex = id.toString('hex');
      const subjectId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      return UUID_PATTERN.test(subjectId) ? subjectId : undefined;
    },
  };
};

/**
 * The body as it leaves: the words stored in the link's place replaced by the link, made now. Called
 * inside the hand-over, so the link is in what goes to the provider and nowhere else.
 */
export function bodyWithLink(
  msg: { body: string; page_link?: PageLink | null },
  secretsKey: Buffer,
  publicUrl: string,
): string {
  const link = msg.page_link;
  if (!link) return msg.body;
  const url = pageLinks(secretsKey, link.path).url(publicUrl, link.subject);
  return msg.body.replaceAll(link.label, () => url);
}
