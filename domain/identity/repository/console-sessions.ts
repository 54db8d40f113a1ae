import { IsNull } from 'typeorm';
import type { Data } from '../../kernel/data';
import { ConsoleSessionEntity, type ConsoleSession, type SessionEnding } from '../entities';

/** A session row with its member's address, as a request reads it. */
export type SessionRow = Pick<ConsoleSession, 'id' | 'user_id' | 'created_at' | 'expires_at'> & {
  email: string;
};

/** What a new session is made of. */
export type NewSession = {
  userId: string;
  fingerprint: Buffer;
  passkeyId: string | null;
  ip: string | null;
  userAgent: string | null;
  now: Date;
  maxHours: number;
};

/** Console sessions: a user's, not a workspace's (a person signs in once for every workspace). */
export const consoleSessions = (data: Data) => ({
  /** SQL: the insert answers the row with its user's address, in one round trip. */
  open: async (s: NewSession): Promise<SessionRow> => {
    const [row] = await data.sql<SessionRow[]>(
      `WITH s AS (
         INSERT INTO console_sessions (user_id, token_fingerprint, created_at, last_seen_at, expires_at, ip, user_agent, passkey_id)
         VALUES ($1, $2, $3, $3, $3::timestamptz + make_interval(hours => $4), $5, $6, $7)
         RETURNING id, user_id, created_at, expires_at
       )
       SELECT s.*, u.email FROM s JOIN users u ON u.id = s.user_id`,
      [s.userId, s.fingerprint, s.now, s.maxHours, s.ip, s.userAgent, s.passkeyId],
    );
    return row!;
  },

  /**
   * The session this fingerprint names, live or not, with why it is over (`over`, null when live at
   * `now`): ended (its reason), past its absolute end or older than the longest a session may last now
   * (a limit lowered since it opened counts: `expired`), or not seen within the idle limit (`idle`). A
   * live one is marked seen, at most once a minute. SQL: the read and the touch in one statement, on
   * every console request.
   */
  presented: async (fingerprint: Buffer, now: Date, idleMinutes: number, maxHours: number) => {
    const [row] = await data.prepared<(SessionRow & { over: 'expired' | 'idle' | SessionEnding | null })[]>(
      'console-session-presented',
      `WITH found AS (
         SELECT s.id, s.user_id, u.email, s.created_at, s.expires_at, s.last_seen_at,
                CASE WHEN s.ended_at IS NOT NULL THEN s.ended_reason
                     WHEN s.expires_at <= $2 OR s.created_at <= $2::timestamptz - make_interval(hours => $4)
                       THEN 'expired'
                     WHEN s.last_seen_at <= $2::timestamptz - make_interval(mins => $3) THEN 'idle'
                END AS over
           FROM console_sessions s JOIN users u ON u.id = s.user_id
          WHERE s.token_fingerprint = $1
       ), touched AS (
         UPDATE console_sessions s SET last_seen_at = $2
           FROM found
          WHERE s.id = found.id AND found.over IS NULL
            AND found.last_seen_at < $2::timestamptz - interval '1 minute'
       )
       SELECT id, user_id, email, created_at, expires_at, over FROM found`,
      [fingerprint, now, idleMinutes, maxHours],
    );
    return row;
  },

  /** Ends one session unless it has ended already; answers how many it ended (0 or 1). */
  end: (id: string, reason: SessionEnding): Promise<number> =>
    data
      .global(ConsoleSessionEntity)
      .set({ id, ended_at: IsNull() }, { ended_at: () => 'clock_timestamp()', ended_reason: reason }),

  /** Ends every session of a user not ended already; answers how many it ended. */
  endAllOf: (userId: string, reason: SessionEnding): Promise<number> =>
    data
      .global(ConsoleSessionEntity)
      .set(
        { user_id: userId, ended_at: IsNull() },
        { ended_at: () => 'clock_timestamp()', ended_reason: reason },
      ),

  /** A user's sessions, newest first. */
  of: (userId: string, take: number): Promise<ConsoleSession[]> =>
    data.global(ConsoleSessionEntity).find({ user_id: userId }, { order: { created_at: 'DESC' }, take }),
});
