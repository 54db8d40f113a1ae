import type { Data } from '../../kernel/data';
import type { SignInLink } from '../entities';

/** The window the rate limits count over, and how many requests each allows in it. */
export type SignInLimits = { windowMinutes: number; perAddress: number; perIp: number };

/** A link as a redeem first reads it: enough to say why it cannot be used. */
type NamedLink = Pick<SignInLink, 'id' | 'browser_fingerprint' | 'used_at' | 'expires_at'> & {
  member: boolean;
};

/** Requests swept past the window by each request, so the log holds about one window's requests. */
const SWEPT = 100;

/** Sign-in links and the log of requests for them. */
export const signInLinks = (data: Data) => ({
  /**
   * Counts a request for a link against the limits and records it when it is within them (a refused
   * request is not recorded, so a flood does not extend its own refusal). SQL, in the caller's
   * transaction: the address's and the client's advisory locks (always in that order) make two requests
   * arriving together count one after the other, which a count and an insert alone would not.
   */
  admitRequest: async (
    addressFingerprint: Buffer,
    ip: string | null,
    now: Date,
    limits: SignInLimits,
  ): Promise<boolean> => {
    await data.sql(
      `SELECT pg_advisory_xact_lock(hashtextextended('sign-in-address:' || encode($1::bytea, 'hex'), 0)),
              pg_advisory_xact_lock(hashtextextended('sign-in-ip:' || coalesce($2::inet::text, ''), 0))`,
      [addressFingerprint, ip],
    );
    const [counts] = await data.sql<{ address: number; ip: number }[]>(
      `SELECT count(*) FILTER (WHERE address_fingerprint = $1)::int AS address,
              count(*) FILTER (WHERE ip = $2::inet)::int AS ip
         FROM sign_in_requests
        WHERE requested_at > $3::timestamptz - make_interval(mins => $4)
          AND (address_fingerprint = $1 OR ip = $2::inet)`,
      [addressFingerprint, ip, now, limits.windowMinutes],
    );
    if (counts!.address >= limits.perAddress || (ip !== null && counts!.ip >= limits.perIp)) return false;
    await data.sql(
      `WITH swept AS (
         DELETE FROM sign_in_requests WHERE id IN (
           SELECT id FROM sign_in_requests WHERE requested_at <= $3::timestamptz - make_interval(mins => $4)
            ORDER BY requested_at LIMIT ${SWEPT})
       )
       INSERT INTO sign_in_requests (address_fingerprint, ip, requested_at) VALUES ($1, $2, $3)`,
      [addressFingerprint, ip, now, limits.windowMinutes],
    );
    return true;
  },

  /** The user with this address, when they are a member of some workspace (nobody else signs in). */
  memberNamed: async (email: string): Promise<string | undefined> => {
    const [row] = await data.sql<{ id: string }[]>(
      `SELECT u.id FROM users u
        WHERE u.email = $1 AND EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = u.id)`,
      [email],
    );
    return row?.id;
  },

  create: async (
    link: Pick<
      SignInLink,
      'user_id' | 'token_fingerprint' | 'browser_fingerprint' | 'created_at' | 'expires_at' | 'ip'
    >,
  ) => {
    await data.sql(
      `INSERT INTO sign_in_links (user_id, token_fingerprint, browser_fingerprint, created_at, expires_at, ip)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        link.user_id,
        link.token_fingerprint,
        link.browser_fingerprint,
        link.created_at,
        link.expires_at,
        link.ip,
      ],
    );
  },

  /**
   * The link a token's fingerprint names, found by its unique index, used or not, with whether its user
   * is still a member somewhere.
   */
  named: async (tokenFingerprint: Buffer): Promise<NamedLink | undefined> => {
    const [row] = await data.sql<NamedLink[]>(
      `SELECT l.id, l.browser_fingerprint, l.used_at, l.expires_at,
              EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = l.user_id) AS member
         FROM sign_in_links l WHERE l.token_fingerprint = $1`,
      [tokenFingerprint],
    );
    return row;
  },

  /**
   * Uses the link, once: it must be unused, not past its end, and its user still a member somewhere.
   * SQL: one conditional UPDATE, so of two redeems racing exactly one matches (the second waits for the
   * first's row lock, then finds `used_at` set); in a WITH, which TypeORM answers as rows.
   */
  use: async (id: string, now: Date): Promise<string | undefined> => {
    const [row] = await data.sql<{ user_id: string }[]>(
      `WITH used AS (
         UPDATE sign_in_links l SET used_at = $2
          WHERE l.id = $1 AND l.used_at IS NULL AND l.expires_at > $2
            AND EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = l.user_id)
          RETURNING l.user_id
       )
       SELECT user_id FROM used`,
      [id, now],
    );
    return row?.user_id;
  },
});
