import type { DeliverabilityLimits } from './deliverability';
import { Raw } from 'typeorm';
import type { Data } from '../kernel/data';
import { DomainError } from '../kernel/errors';
import { AuditEntity, type AuditRow } from '../kernel/entities';
import type { Role, Scope } from '../kernel/permissions';
import {
  ApiKeyEntity,
  MembershipEntity,
  RateLimitWindowEntity,
  UserEntity,
  WorkspaceEntity,
  type ApiKey,
  type Membership,
  type Workspace,
} from './entities';

/** The workspace a call acts in, for the writes and reads that must name it themselves. */
const workspaceOf = (data: Data): string => {
  if (data.workspaceId === undefined) throw new Error('this needs the workspace the call acts in');
  return data.workspaceId;
};

/** A workspace by id (a workspace is its own scope: the call reaches only its own, or the operator any). */
export const workspaceNamed = (data: Data, id: string): Promise<Workspace | null> =>
  data.workspaceId !== undefined && data.workspaceId !== id
    ? Promise.resolve(null)
    : data.global(WorkspaceEntity).findOne({ id });

/** Workspaces: no workspace owns one, so creating one is the operator's, outside any. */
export const workspacesIn = (data: Data) => ({
  create: (values: Pick<Workspace, 'name' | 'timezone' | 'industry'>): Promise<Workspace> =>
    data.global(WorkspaceEntity).insert({ ...values, status: 'active' }),
  named: (id: string) => workspaceNamed(data, id),
  setInboundEmailSecretHash: async (id: string, hash: string): Promise<void> => {
    await data.global(WorkspaceEntity).set({ id }, { inbound_email_secret_hash: hash });
  },
  setDeliverability: async (id: string, limits: DeliverabilityLimits): Promise<void> => {
    await data.global(WorkspaceEntity).set({ id }, { deliverability: limits });
  },
  setDistinctApprover: async (id: string, distinct: boolean): Promise<void> => {
    await data.global(WorkspaceEntity).set({ id }, { distinct_approver: distinct });
  },
});

/** The workspace's members: its memberships, and the users they name by email. */
export const membersIn = (data: Data) => {
  const memberships = data.scoped(MembershipEntity);
  const userIdOf = async (email: string) =>
    (await data.global(UserEntity).findOne({ email }, { select: { id: true } }))?.id;
  return {
    /** The user id of a member of the workspace, or undefined. */
    idOf: async (email: string): Promise<string | undefined> => {
      const userId = await userIdOf(email);
      return userId && (await memberships.exists({ user_id: userId })) ? userId : undefined;
    },
    /** A member by email as a person typed it (trimmed, any case), with their live role. */
    byEmail: async (email: string): Promise<{ userId: string; role: Role } | undefined> => {
      const userId = await userIdOf(email.trim().toLowerCase());
      const member = userId && (await memberships.findOne({ user_id: userId }, { select: { role: true } }));
      return member ? { userId: userId, role: member.role } : undefined;
    },
    /** A user's live role in the workspace, or null once they are no member. */
    roleOf: async (userId: string): Promise<Role | null> =>
      (await memberships.findOne({ user_id: userId }, { select: { role: true } }))?.role ?? null,
    /**
     * Adds the person (a user from first sight of the email), answering their user id, or undefined
     * when they are already a member. SQL: two ON CONFLICT upserts, so a concurrent add finds no gap
     * between a read and a write (the user's id is answered whether or not it was new).
     */
    add: async (email: string, role: Role): Promise<string | undefined> => {
      const [user] = await data.sql<{ id: string }[]>(
        `INSERT INTO users (email) VALUES ($1) ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email RETURNING id`,
        [email],
      );
      const added = await data.sql<unknown[]>(
        `INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING user_id`,
        [workspaceOf(data), user!.id, role],
      );
      return added.length > 0 ? user!.id : undefined;
    },
    /** The membership with its new role, or undefined when the email is no member. */
    setRole: async (email: string, role: Role): Promise<Membership | undefined> => {
      const userId = await userIdOf(email);
      if (!userId) return undefined;
      const [changed] = await memberships.update({ user_id: userId }, { role, updated_at: () => 'now()' });
      return changed;
    },
    /** The membership as it was, or undefined when the email is no member. */
    remove: async (email: string): Promise<Membership | undefined> => {
      const userId = await userIdOf(email);
      if (!userId) return undefined;
      const [removed] = await memberships.delete({ user_id: userId });
      return removed;
    },
  };
};

/** What a new key is made of; the workspace is the call's. */
export type NewKey = Pick<
  ApiKey,
  'owner_user_id' | 'name' | 'prefix' | 'fingerprint' | 'scopes' | 'allowed_cidrs' | 'expires_at'
>;

/** The workspace's API key records. */
export const keysIn = (data: Data) => {
  const keys = data.scoped(ApiKeyEntity);
  return {
    create: (values: NewKey) => keys.insert({ ...values, environment: 'live' }),
    lock: (id: string) => keys.findOne({ id }, { lock: true }),
    revoke: async (id: string): Promise<ApiKey> =>
      (await keys.update({ id }, { revoked_at: () => 'clock_timestamp()' }))[0]!,
    /** Newest first. */
    list: () => keys.find({}, { order: { created_at: 'DESC' } }),
    /**
     * Where a key stands now, for work parked on its authority: its name, scopes, revocation and expiry,
     * and its owner's email and live role (null once no member). SQL: one read joining the owner's
     * membership and address, which a person checking a request needs together.
     */
    standing: async (id: string): Promise<KeyStanding | undefined> => {
      const [row] = await data.sql<KeyStanding[]>(
        `SELECT k.id, k.name, k.prefix, k.scopes, k.revoked_at, k.expires_at, k.expires_at <= clock_timestamp() AS expired,
                k.owner_user_id, u.email AS owner_email, m.role AS owner_role
           FROM api_keys k JOIN users u ON u.id = k.owner_user_id
           LEFT JOIN memberships m ON m.workspace_id = k.workspace_id AND m.user_id = k.owner_user_id
          WHERE k.id = $1 AND k.workspace_id = $2`,
        [id, workspaceOf(data)],
      );
      return row;
    },
  };
};

/** A key's standing now: what work parked on its authority is checked against. */
export type KeyStanding = {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  revoked_at: Date | null;
  expires_at: Date;
  expired: boolean;
  owner_user_id: string;
  owner_email: string;
  owner_role: Role | null;
};

/**
 * The workspace's audit rows, newest first. Through the table's own repository with the workspace
 * named here: audit_log.workspace_id is nullable (a refusal may know no workspace), which a scoped
 * repository's rows may not be.
 */
export const auditOf = (data: Data, limit: number): Promise<AuditRow[]> =>
  data.global(AuditEntity).find({ workspace_id: workspaceOf(data) }, { order: { id: 'DESC' }, take: limit });

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

/** The user id of a member of the call's workspace, by email; `field` names the input that gave the email. */
export async function ownerIdByEmail(data: Data, email: string, field: string): Promise<string> {
  const id = await membersIn(data).idOf(email);
  if (!id) throw new DomainError('not_found', `${email} is not a member of this workspace.`, { field });
  return id;
}
