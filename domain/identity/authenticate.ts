import type { DataSource } from 'typeorm';
import type { Principal, Role, Scope } from '../kernel/permissions';
import { isIP } from 'node:net';
import { normaliseIp } from './ip-allowlist';
import { displayPrefix, fingerprintKey, looksLikeApiKey, sameFingerprint } from './keys';

/** This request's place in its key's rate-limit window, counted in the same round trip as the key lookup. */
export type RateCount = { hits: number; reset: number };

export type AuthResult =
  | { ok: true; principal: Principal; rate?: RateCount }
  | { ok: false; reason: string; keyPrefix?: string; keyId?: string; workspaceId?: string };

type KeyRow = {
  id: string;
  name: string;
  environment: string;
  prefix: string;
  fingerprint: Buffer;
  scopes: Scope[];
  /** The client address is inside the key's allowlist, or the list is empty; decided in SQL. */
  address_allowed: boolean;
  /** Decided by the database's clock, the same one the rate-limit window uses. */
  expired: boolean;
  revoked_at: Date | null;
  workspace_status: string;
  workspace_id: string;
  owner_user_id: string;
  role: Role | null;
  hits: number | null;
  reset: number | null;
};

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

export async function authenticateKey(
  db: Pick<DataSource, 'query'>,
  presented: string | undefined,
  clientIp: string | undefined,
  /** Also count this request in the key's one-minute window (the REST door's rate limit). */
  opts: { countRequest?: boolean } = {},
): Promise<AuthResult> {
  if (!presented) return { ok: false, reason: 'no bearer key presented' };
  // Only a recognisable key's prefix is recorded, so a secret pasted by mistake never reaches the log.
  const keyPrefix = looksLikeApiKey(presented) ? displayPrefix(presented) : undefined;
  if (!keyPrefix) return { ok: false, reason: 'malformed key' };
  const fingerprint = fingerprintKey(presented);
  // One round trip: the key, its owner's live role, whether the address is allowed and, for a key
  // that passes every check, the rate-limit count: a key used from outside its allowlist costs its
  // owner no quota.
  const rows = await db.query<KeyRow[]>(
    `WITH k AS (
       SELECT k.id, k.name, k.environment, k.prefix, k.fingerprint, k.scopes,
              (cardinality(k.allowed_cidrs) = 0 OR coalesce($3::inet <<= ANY(k.allowed_cidrs), false)) AS address_allowed,
              k.expires_at <= clock_timestamp() AS expired, k.revoked_at, k.workspace_id, k.owner_user_id, m.role,
              w.status AS workspace_status
         FROM api_keys k
         JOIN workspaces w ON w.id = k.workspace_id
         LEFT JOIN memberships m ON m.workspace_id = k.workspace_id AND m.user_id = k.owner_user_id
        WHERE k.fingerprint = $1
     ), rl AS (
       INSERT INTO rate_limit_windows AS w (key_id, window_start, hits)
       SELECT id, date_trunc('minute', clock_timestamp()), 1 FROM k
        WHERE $2 AND revoked_at IS NULL AND NOT expired AND workspace_status = 'active' AND address_allowed
       ON CONFLICT (key_id, window_start) DO UPDATE SET hits = w.hits + 1
       RETURNING w.hits,
         greatest(1, ceil(extract(epoch FROM w.window_start + interval '1 minute' - clock_timestamp())))::int AS reset
     )
     SELECT k.*, rl.hits, rl.reset FROM k LEFT JOIN rl ON true`,
    [fingerprint, opts.countRequest ?? false, addressOrNull(clientIp)],
  );
  const row = rows[0];
  if (!row || !sameFingerprint(row.fingerprint, fingerprint))
    return { ok: false, reason: 'unknown key', keyPrefix };
  const known = { keyPrefix, keyId: row.id, workspaceId: row.workspace_id };
  if (row.revoked_at) return { ok: false, reason: 'key revoked', ...known };
  if (row.expired) return { ok: false, reason: 'key expired', ...known };
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
    },
    rate: row.hits === null || row.reset === null ? undefined : { hits: row.hits, reset: row.reset },
  };
}
