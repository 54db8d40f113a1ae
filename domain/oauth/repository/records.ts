import { createHash } from 'node:crypto';
import type { Data } from '../../kernel/data';
import { purgeBatch } from '../../kernel/retention';

/**
 * The authorization server's models whose id is itself a bearer secret (a code, a token): stored and
 * looked up by its SHA-256, so whoever reads the table still cannot present one.
 */
const SECRET_IDS = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'ClientCredentials',
  'RegistrationAccessToken',
  'InitialAccessToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PushedAuthorizationRequest',
]);

/** Models used once: a second use must fail even when two requests race (the second finds it consumed). */
const USED_ONCE = new Set([
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

const stored = (model: string, id: string) =>
  SECRET_IDS.has(model) ? createHash('sha256').update(id, 'utf8').digest('base64url') : id;

export type RecordPayload = Record<string, unknown> & { grantId?: string; uid?: string; jti?: string };

/**
 * The records of one model, as the authorization server's storage adapter asks for them. SQL: each
 * call one statement; `consume` marks a record used in one conditional UPDATE, so of two racing uses
 * exactly one wins.
 */
export const recordsOf = (data: Data, model: string) => ({
  upsert: async (id: string, payload: RecordPayload, expiresIn: number | undefined): Promise<void> => {
    // A secret's id is never stored beside its fingerprint: the payload loses its `jti`, given back on reading.
    const kept = SECRET_IDS.has(model) ? { ...payload, jti: undefined } : payload;
    await data.sql(
      `INSERT INTO oauth_records (model, id, payload, grant_id, uid, expires_at)
       VALUES ($1, $2, $3, $4, $5, CASE WHEN $6::int IS NULL THEN NULL ELSE clock_timestamp() + make_interval(secs => $6::int) END)
       ON CONFLICT (model, id) DO UPDATE
         SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid, expires_at = excluded.expires_at`,
      [
        model,
        stored(model, id),
        JSON.stringify(kept),
        payload.grantId ?? null,
        model === 'Session' ? (payload.uid ?? null) : null,
        expiresIn ?? null,
      ],
    );
  },
  find: async (id: string): Promise<RecordPayload | undefined> =>
    one(data, model, 'id', stored(model, id), SECRET_IDS.has(model) ? id : undefined),
  findByUid: (uid: string): Promise<RecordPayload | undefined> => one(data, model, 'uid', uid),
  /** False when it was already used (or is gone): the caller must refuse this use. */
  consume: async (id: string): Promise<boolean> => {
    const rows = await data.sql<unknown[]>(
      `UPDATE oauth_records SET consumed_at = clock_timestamp()
        WHERE model = $1 AND id = $2 AND consumed_at IS NULL RETURNING 1`,
      [model, stored(model, id)],
    );
    return rows.length > 0 || !USED_ONCE.has(model);
  },
  destroy: async (id: string): Promise<void> => {
    await data.sql(`DELETE FROM oauth_records WHERE model = $1 AND id = $2`, [model, stored(model, id)]);
  },
  revokeByGrantId: async (grantId: string): Promise<void> => {
    await data.sql(`DELETE FROM oauth_records WHERE model = $1 AND grant_id = $2`, [model, grantId]);
  },
});

async function one(
  data: Data,
  model: string,
  column: 'id' | 'uid',
  value: string,
  presentedId?: string,
): Promise<RecordPayload | undefined> {
  const [row] = await data.sql<{ payload: RecordPayload; consumed_at: Date | null }[]>(
    `SELECT payload, consumed_at FROM oauth_records
      WHERE model = $1 AND ${column} = $2 AND (expires_at IS NULL OR expires_at > clock_timestamp())
      ORDER BY expires_at DESC NULLS FIRST LIMIT 1`,
    [model, value],
  );
  if (!row) return undefined;
  return {
    ...row.payload,
    ...(presentedId !== undefined && { jti: presentedId }),
    ...(row.consumed_at && { consumed: Math.floor(row.consumed_at.getTime() / 1000) }),
  };
}

/**
 * Everything a grant issued ends together: its access and refresh tokens, its codes and the grant. SQL:
 * one DELETE by the grant index.
 */
export const endGrant = async (data: Data, grantId: string): Promise<number> => {
  const rows = await data.sql<unknown[]>(
    `DELETE FROM oauth_records WHERE grant_id = $1 OR (model = 'Grant' AND id = $1) RETURNING 1`,
    [grantId],
  );
  return rows.length;
};

/** A registered client and every record issued to it. SQL: one DELETE. */
export const forgetClient = async (data: Data, clientId: string): Promise<number> => {
  const rows = await data.sql<unknown[]>(
    `DELETE FROM oauth_records WHERE (model = 'Client' AND id = $1) OR payload->>'clientId' = $1 RETURNING 1`,
    [clientId],
  );
  return rows.length;
};

/** The clients registered over RFC 7591, newest first, as the operator lists them. */
export const registeredClients = (data: Data) =>
  data.sql<{ id: string; payload: Record<string, unknown> }[]>(
    `SELECT id, payload FROM oauth_records WHERE model = 'Client' ORDER BY (payload->>'client_id_issued_at')::bigint DESC NULLS LAST LIMIT 500`,
  );

/**
 * Removes up to `limit` records that expired more than a day ago (a consumed code or refresh token is
 * kept until then, so its reuse is still recognised and revokes its grant).
 */
export const sweepRecords = (data: Data, limit: number): Promise<number> =>
  purgeBatch(
    data,
    `DELETE FROM oauth_records WHERE ctid IN (SELECT ctid FROM oauth_records
      WHERE expires_at < clock_timestamp() - interval '1 day' LIMIT $1)`,
    [limit],
  );
