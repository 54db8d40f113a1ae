import { IsNull } from 'typeorm';
import type { Data } from '../../kernel/data';
import type { Role, Scope } from '../../kernel/permissions';
import { ApiKeyEntity, type ApiKey } from '../entities';
import { workspaceOf } from './workspaces';

/** What a new key is made of; the workspace is the call's. */
export type NewKey = Pick<
  ApiKey,
  'owner_user_id' | 'name' | 'prefix' | 'fingerprint' | 'scopes' | 'allowed_cidrs' | 'expires_at'
> &
  Partial<Pick<ApiKey, 'kind'>>;

/** The workspace's API key records. */
export const keysIn = (data: Data) => {
  const keys = data.scoped(ApiKeyEntity);
  return {
    create: (values: NewKey) => keys.insert({ ...values, environment: 'live' }),
    /** Any credential: a key, or an assistant connection's. */
    lock: (id: string) => keys.findOne({ id }, { lock: true }),
    /** A key the workspace's software presents (never an assistant connection's credential). */
    lockKey: (id: string) => keys.findOne({ id, kind: 'key' }, { lock: true }),
    revoke: async (id: string): Promise<ApiKey> =>
      (await keys.update({ id }, { revoked_at: () => 'clock_timestamp()' }))[0]!,
    /** Revokes the assistant connections a member made here (their removal); answers how many. */
    revokeAssistantsOf: async (userId: string): Promise<number> =>
      (
        await keys.update(
          { owner_user_id: userId, kind: 'assistant', revoked_at: IsNull() },
          { revoked_at: () => 'clock_timestamp()' },
        )
      ).length,
    /** The keys (not the assistant connections' credentials), newest first. */
    list: () => keys.find({ kind: 'key' }, { order: { created_at: 'DESC' } }),
    /**
     * Each key's owner's email and when a request last came with it (its newest audit row, found by
     * the audit log's index on key_id), for the list a person reads. SQL: a join and a correlated
     * newest-row read per key, one round trip for the whole list.
     */
    usage: (): Promise<{ id: string; owner_email: string; last_used_at: Date | null }[]> =>
      data.sql(
        `SELECT k.id, u.email AS owner_email,
                (SELECT a.at FROM audit_log a WHERE a.key_id = k.id ORDER BY a.id DESC LIMIT 1) AS last_used_at
           FROM api_keys k JOIN users u ON u.id = k.owner_user_id
          WHERE k.workspace_id = $1`,
        [workspaceOf(data)],
      ),
    /**
     * Where a key stands now, for work parked on its authority: its name, scopes, revocation and expiry,
     * and its owner's email and live role (null once no member). SQL: one read joining the owner's
     * membership and address, which a person checking a request needs together.
     */
    standing: async (id: string): Promise<KeyStanding | undefined> => {
      const [row] = await data.sql<KeyStanding[]>(
        `SELECT k.id, k.kind, k.name, k.prefix, k.scopes, k.revoked_at, k.expires_at, k.expires_at <= clock_timestamp() AS expired,
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
  /** `assistant`: an assistant connection (its name is the client's, its prefix the client's host). */
  kind: ApiKey['kind'];
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
