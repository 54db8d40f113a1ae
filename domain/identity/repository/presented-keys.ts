import { Raw } from 'typeorm';
import type { Data } from '../../kernel/data';
import type { Role } from '../../kernel/permissions';
import { RateLimitWindowEntity, type ApiKey, type Workspace } from '../entities';

/** A presented key as every request reads it: the record, its owner's live role and the checks. */
export type PresentedKey = Pick<
  ApiKey,
  | 'id'
  | 'name'
  | 'environment'
  | 'prefix'
  | 'fingerprint'
  | 'scopes'
  | 'revoked_at'
  | 'workspace_id'
  | 'owner_user_id'
> & {
  /** The client address is inside the key's allowlist, or the list is empty; decided in SQL. */
  address_allowed: boolean;
  /** Decided by the database's clock, the same one the rate-limit window uses. */
  expired: boolean;
  workspace_status: Workspace['status'];
  /** Null once the owner is no longer a member. */
  role: Role | null;
  /** This request's count in the key's window, when it was counted. */
  hits: number | null;
  reset: number | null;
};

/** A key as one request presented it: its fingerprint, whether to count the request, and the address. */
export type KeyPresentation = { fingerprint: Buffer; countRequest: boolean; address: string | null };

/**
 * The keys with these fingerprints, one answer per presentation, in order. SQL: it runs on every
 * request (REST and MCP), so requests arriving together are looked up in one round trip and one
 * commit: each key, its owner's live role, whether the address is allowed (inet containment) and,
 * for a presentation to count that passes every check, the request counted in its key's one-minute
 * window with an upsert (a key used from outside its allowlist costs its owner no quota). A key
 * presented n times in one call adds n to its window at once (windows are locked in key order, so two
 * processes' calls never deadlock); each presentation gets its own place in that window, in order.
 */
export async function presentedKeys(
  data: Data,
  presented: readonly KeyPresentation[],
): Promise<(PresentedKey | undefined)[]> {
  const rows = await data.prepared<(PresentedKey & { n: string; counted: boolean; times: number | null })[]>(
    'presented-keys',
    `WITH r AS (
       SELECT * FROM unnest($1::bytea[], $2::boolean[], $3::inet[]) WITH ORDINALITY AS r(fingerprint, count, address, n)
     ), found AS (
       SELECT r.n, r.count, k.id, k.name, k.environment, k.prefix, k.fingerprint, k.scopes,
              (cardinality(k.allowed_cidrs) = 0 OR coalesce(r.address <<= ANY(k.allowed_cidrs), false)) AS address_allowed,
              k.expires_at <= clock_timestamp() AS expired, k.revoked_at, k.workspace_id, k.owner_user_id, m.role,
              w.status AS workspace_status
         FROM r
         JOIN api_keys k ON k.fingerprint = r.fingerprint
         JOIN workspaces w ON w.id = k.workspace_id
         LEFT JOIN memberships m ON m.workspace_id = k.workspace_id AND m.user_id = k.owner_user_id
     ), k AS (
       -- Decided once per presentation: the same key may come from an allowed and a refused address.
       SELECT found.*,
              count AND revoked_at IS NULL AND NOT expired AND workspace_status = 'active' AND address_allowed AS counts
         FROM found
     ), counted AS (
       SELECT id, count(*)::int AS times FROM k WHERE counts GROUP BY id
     ), rl AS (
       INSERT INTO rate_limit_windows AS w (key_id, window_start, hits)
       SELECT id, date_trunc('minute', clock_timestamp()), times FROM counted ORDER BY id
       ON CONFLICT (key_id, window_start) DO UPDATE SET hits = w.hits + excluded.hits
       RETURNING w.key_id, w.hits,
         greatest(1, ceil(extract(epoch FROM w.window_start + interval '1 minute' - clock_timestamp())))::int AS reset
     )
     SELECT k.n, k.id, k.name, k.environment, k.prefix, k.fingerprint, k.scopes, k.address_allowed, k.expired,
            k.revoked_at, k.workspace_id, k.owner_user_id, k.role, k.workspace_status,
            k.counts AS counted, rl.hits, rl.reset, c.times
       FROM k LEFT JOIN rl ON rl.key_id = k.id LEFT JOIN counted c ON c.id = k.id
      ORDER BY k.n`,
    [
      presented.map((p) => p.fingerprint),
      presented.map((p) => p.countRequest),
      presented.map((p) => p.address),
    ],
  );
  const answers: (PresentedKey | undefined)[] = presented.map(() => undefined);
  // The window's count after this call, handed out one by one: the first counted presentation of a
  // key gets hits - times + 1, the last gets hits.
  const handedOut = new Map<string, number>();
  for (const { n, counted, times, ...row } of rows) {
    let hits: number | null = null;
    if (counted && row.hits !== null && times !== null) {
      const before = handedOut.get(row.id) ?? 0;
      handedOut.set(row.id, before + 1);
      hits = row.hits - times + 1 + before;
    }
    answers[Number(n) - 1] = { ...row, hits, reset: hits === null ? null : row.reset };
  }
  return answers;
}

/** Drops a key's windows before the current minute, by the database's clock that opened them. */
export const dropOldWindows = async (data: Data, keyId: string): Promise<void> => {
  await data.global(RateLimitWindowEntity).delete({
    key_id: keyId,
    window_start: Raw((column) => `${column} < date_trunc('minute', clock_timestamp())`),
  });
};
