import { isIP } from 'node:net';
import type { DataSource } from 'typeorm';
import { Data } from '../kernel/data';
import type { Principal } from '../kernel/permissions';
import { normaliseIp } from './ip-allowlist';
import { displayPrefix, fingerprintKey, looksLikeApiKey, sameFingerprint } from './keys';
import { presentedKeys, type KeyPresentation, type PresentedKey } from './repository/presented-keys';

/** This request's place in its key's rate-limit window, counted in the same round trip as the key lookup. */
export type RateCount = { hits: number; reset: number };

export type AuthResult =
  | { ok: true; principal: Principal; rate?: RateCount }
  | { ok: false; reason: string; keyPrefix?: string; keyId?: string; workspaceId?: string };

/** Parses the Authorization header value; returns undefined for anything but `Bearer <token>`. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '');
  return match?.[1];
}

/** The caller's address as PostgreSQL's inet reads it (IPv4-mapped IPv6 as IPv4), or null. */
const addressOrNull = (ip: string | undefined) => {
  const a = normaliseIp(ip);
  return a && isIP(a) ? a : null;
};

/** Finds a presented key (and counts the request when asked): on its own, or as one of a batch. */
export type KeyLookup = (presentation: KeyPresentation) => Promise<PresentedKey | undefined>;

/** One presentation, one round trip. The API batches requests arriving together instead. */
const lookUpKeyAlone =
  (db: Pick<DataSource, 'manager'>): KeyLookup =>
  async (presentation) =>
    (await presentedKeys(new Data(db.manager, undefined), [presentation]))[0];

/** What a request presented, once recognised: a key's fingerprint, or an assistant connection's. */
export type PresentedCredential = {
  fingerprint: Buffer;
  /** What the audit row names it by (a key's display prefix). */
  keyPrefix?: string;
  /** The OAuth client, when an access token stands for an assistant connection. */
  client?: { id: string; name: string };
};

/** The principal a presented key acts as, or why it is refused; one round trip (`presentedKeys`). */
export async function authenticateKey(
  db: Pick<DataSource, 'manager'>,
  presented: string | undefined,
  clientIp: string | undefined,
  opts: {
    /** Also count this request in the key's one-minute window (the REST door's rate limit). */
    countRequest?: boolean;
    /** How the key is found; by default on its own round trip. */
    lookup?: KeyLookup;
  } = {},
): Promise<AuthResult> {
  if (!presented) return { ok: false, reason: 'no bearer key presented' };
  // Only a recognisable key's prefix is recorded, so a secret pasted by mistake never reaches the log.
  const keyPrefix = looksLikeApiKey(presented) ? displayPrefix(presented) : undefined;
  if (!keyPrefix) return { ok: false, reason: 'malformed key' };
  return authenticateCredential(db, { fingerprint: fingerprintKey(presented), keyPrefix }, clientIp, opts);
}

/**
 * The principal a recognised credential acts as (a key, or the assistant connection an access token
 * stands for), or why it is refused: the same checks for both, in one round trip.
 */
export async function authenticateCredential(
  db: Pick<DataSource, 'manager'>,
  presented: PresentedCredential,
  clientIp: string | undefined,
  opts: { countRequest?: boolean; lookup?: KeyLookup } = {},
): Promise<AuthResult> {
  const { fingerprint, keyPrefix } = presented;
  const row = await (opts.lookup ?? lookUpKeyAlone(db))({
    fingerprint,
    countRequest: opts.countRequest ?? false,
    address: addressOrNull(clientIp),
  });
  if (!row || !sameFingerprint(row.fingerprint, fingerprint))
    return { ok: false, reason: presented.client ? 'connection not found' : 'unknown key', keyPrefix };
  const what = presented.client ? 'connection' : 'key';
  const known = { keyPrefix: keyPrefix ?? row.prefix, keyId: row.id, workspaceId: row.workspace_id };
  if (row.revoked_at) return { ok: false, reason: `${what} revoked`, ...known };
  if (row.expired) return { ok: false, reason: `${what} expired`, ...known };
  if (row.workspace_status !== 'active')
    return { ok: false, reason: `workspace ${row.workspace_status}`, ...known };
  if (!row.address_allowed) {
    return {
      ok: false,
      reason: `client address ${clientIp ?? 'unknown'} not in the key's IP allowlist`,
      ...known,
    };
  }
  return {
    ok: true,
    principal: {
      keyId: row.id,
      keyName: row.name,
      keyPrefix: row.prefix,
      environment: row.environment,
      scopes: row.scopes,
      workspaceId: row.workspace_id,
      userId: row.owner_user_id,
      role: row.role,
      ...(presented.client && { client: presented.client }),
    },
    rate: row.hits === null || row.reset === null ? undefined : { hits: row.hits, reset: row.reset },
  };
}
