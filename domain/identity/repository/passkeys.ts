import type { Data } from '../../kernel/data';
import { PasskeyEntity, type Passkey } from '../entities';

/** A passkey as an assertion is checked against it. */
export type StoredPasskey = Pick<
  Passkey,
  'id' | 'user_id' | 'credential_id' | 'public_key' | 'sign_count' | 'transports'
>;

/** Members' passkeys: a user's, not a workspace's. */
export const passkeysIn = (data: Data) => {
  const passkeys = data.global(PasskeyEntity);
  return {
    /** A user's passkeys, oldest first. */
    of: (userId: string): Promise<Passkey[]> =>
      passkeys.find({ user_id: userId }, { order: { created_at: 'ASC' } }),

    /**
     * Stores a verified credential, answering its id, or undefined when the credential is registered
     * already (to anyone). SQL: ON CONFLICT on the unique credential id, so two registrations of one
     * credential racing store it once.
     */
    add: async (p: Omit<Passkey, 'id' | 'created_at' | 'last_used_at'>): Promise<string | undefined> => {
      const [row] = await data.sql<{ id: string }[]>(
        `INSERT INTO passkeys (user_id, credential_id, public_key, sign_count, transports, device_type, backed_up, name)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (credential_id) DO NOTHING RETURNING id`,
        [
          p.user_id,
          p.credential_id,
          p.public_key,
          p.sign_count,
          p.transports,
          p.device_type,
          p.backed_up,
          p.name,
        ],
      );
      return row?.id;
    },

    /**
     * The passkey with this credential id, when its user is a member somewhere (`userId`: only when it
     * is that user's).
     */
    byCredential: async (credentialId: string, userId?: string): Promise<StoredPasskey | undefined> => {
      const [row] = await data.sql<StoredPasskey[]>(
        `SELECT p.id, p.user_id, p.credential_id, p.public_key, p.sign_count, p.transports
           FROM passkeys p
          WHERE p.credential_id = $1 AND ($2::uuid IS NULL OR p.user_id = $2)
            AND EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = p.user_id)`,
        [credentialId, userId ?? null],
      );
      return row;
    },

    /**
     * Records a use with the authenticator's new counter, unless another use recorded a counter as high
     * meanwhile (a counter never goes back; authenticators that keep none report 0 every time). SQL: a
     * conditional UPDATE, so of two assertions racing with one counter only the higher stands.
     */
    used: async (id: string, counter: number, now: Date): Promise<boolean> => {
      const [row] = await data.sql<{ id: string }[]>(
        `WITH used AS (
           UPDATE passkeys SET sign_count = $2, last_used_at = $3
            WHERE id = $1 AND (sign_count < $2 OR (sign_count = 0 AND $2 = 0))
            RETURNING id
         )
         SELECT id FROM used`,
        [id, counter, now],
      );
      return row !== undefined;
    },
  };
};
