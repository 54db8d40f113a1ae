import type { Data } from '../../kernel/data';
import { SigningKeyEntity, type SigningKey } from '../entities';

/** The authorization server's signing keys (global: one authorization server for every workspace). */
export const signingKeysIn = (data: Data) => {
  const keys = data.global(SigningKeyEntity);
  return {
    add: (kid: string, sealed: Buffer) => keys.insert({ kid, sealed }),
    /**
     * The live keys and those retired less than `hours` ago, live first then newest. SQL: the window
     * is the database's clock, like every other expiry here.
     */
    published: (hours: number): Promise<SigningKey[]> =>
      data.sql(
        `SELECT * FROM oauth_signing_keys
          WHERE retired_at IS NULL OR retired_at > clock_timestamp() - make_interval(hours => $1)
          ORDER BY retired_at IS NULL DESC, created_at DESC`,
        [hours],
      ),
    /** Serialises making the first key and rotating (SQL: a transaction-scoped advisory lock). */
    lockForFirst: async () => {
      await data.sql(`SELECT pg_advisory_xact_lock(hashtext('oauth_signing_keys'))`);
    },
    /** SQL: one UPDATE of every live key. */
    retireAll: async () => {
      await data.sql(`UPDATE oauth_signing_keys SET retired_at = clock_timestamp() WHERE retired_at IS NULL`);
    },
    listed: async () =>
      (await keys.find({}, { order: { created_at: 'DESC' } })).map((k) => ({
        kid: k.kid,
        created_at: k.created_at.toISOString(),
        retired_at: k.retired_at ? k.retired_at.toISOString() : null,
      })),
  };
};
