import type { Data } from '../../kernel/data';
import type { Scope } from '../../kernel/permissions';
import { AssistantConnectionEntity, type AssistantConnection } from '../entities';

/** A connection as the console and the CLI list it: the client, the member, the scopes, its state. */
export type ConnectionRow = AssistantConnection & {
  member_user_id: string;
  member_email: string;
  scopes: Scope[];
  revoked_at: Date | null;
  expires_at: Date;
  last_used_at: Date | null;
};

/** The workspace's assistant connections. */
export const connectionsIn = (data: Data) => {
  const rows = data.scoped(AssistantConnectionEntity);
  return {
    add: (values: Omit<AssistantConnection, 'workspace_id' | 'created_at'>) => rows.insert(values),
    /** One connection by id, where the call may reach it (the operator: any workspace's). */
    find: (keyId: string) => rows.findOne({ key_id: keyId }),
    /**
     * With their credential (scopes, revocation, expiry), member and last use (the newest audit row of
     * the credential, by the audit log's key index). SQL: one round trip for the list a person reads.
     */
    list: (keyId?: string): Promise<ConnectionRow[]> =>
      data.sql(
        `SELECT c.*, k.scopes, k.revoked_at, k.expires_at, u.id AS member_user_id, u.email AS member_email,
                (SELECT a.at FROM audit_log a WHERE a.key_id = k.id ORDER BY a.id DESC LIMIT 1) AS last_used_at
           FROM assistant_connections c
           JOIN api_keys k ON k.id = c.key_id
           JOIN users u ON u.id = k.owner_user_id
          WHERE c.workspace_id = $1 AND ($2::uuid IS NULL OR c.key_id = $2)
          ORDER BY c.created_at DESC`,
        [data.workspaceId, keyId ?? null],
      ),
  };
};

/**
 * The credential an access token's grant stands for, found from the grant (every workspace's: the
 * token names no workspace). SQL: on every assistant request, by the grant's unique index.
 */
export const connectionOfGrant = async (
  data: Data,
  grantId: string,
): Promise<{ fingerprint: Buffer; client_id: string; client_name: string } | undefined> => {
  const [row] = await data.prepared<{ fingerprint: Buffer; client_id: string; client_name: string }[]>(
    'connection-of-grant',
    `SELECT k.fingerprint, c.client_id, c.client_name
       FROM assistant_connections c JOIN api_keys k ON k.id = c.key_id
      WHERE c.grant_id = $1`,
    [grantId],
  );
  return row;
};

/** The connection of a grant, with its workspace, when the authorization server ends the grant itself. */
export const connectionByGrant = (data: Data, grantId: string) =>
  data.global(AssistantConnectionEntity).findOne({ grant_id: grantId });

/**
 * Whether a grant's connection may still get tokens: its credential live (not revoked, not expired) and
 * its member still a member. SQL: one read joining the credential and the membership.
 */
export const grantLive = async (data: Data, grantId: string): Promise<boolean> => {
  const [row] = await data.sql<{ live: boolean }[]>(
    `SELECT k.revoked_at IS NULL AND k.expires_at > clock_timestamp() AND m.user_id IS NOT NULL AS live
       FROM assistant_connections c JOIN api_keys k ON k.id = c.key_id
       LEFT JOIN memberships m ON m.workspace_id = k.workspace_id AND m.user_id = k.owner_user_id
      WHERE c.grant_id = $1`,
    [grantId],
  );
  return row?.live ?? false;
};
