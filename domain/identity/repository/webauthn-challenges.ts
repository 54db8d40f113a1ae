import type { Data } from '../../kernel/data';
import { WebauthnChallengeEntity, type WebauthnChallenge } from '../entities';

/** Challenges swept by each new one, once they are an hour past their end. */
const SWEPT = 100;

/** What a new challenge is made of. */
export type NewChallenge = Pick<WebauthnChallenge, 'purpose' | 'challenge' | 'expires_at'> &
  Partial<
    Pick<
      WebauthnChallenge,
      'nonce' | 'user_id' | 'browser_fingerprint' | 'session_id' | 'approval_id' | 'digest'
    >
  >;

/** WebAuthn challenges handed to browsers, each usable once. */
export const challengesIn = (data: Data) => ({
  /** Stores a challenge; sweeps some long dead ones on the way (each lives minutes). */
  add: async (c: NewChallenge, now: Date) => {
    await data.sql(
      `DELETE FROM webauthn_challenges WHERE id IN (
         SELECT id FROM webauthn_challenges WHERE expires_at < $1::timestamptz - interval '1 hour'
          ORDER BY expires_at LIMIT ${SWEPT})`,
      [now],
    );
    await data.global(WebauthnChallengeEntity).add(c, ['id']);
  },

  /** The challenge with this value, for this purpose, found by its unique index, used or not. */
  named: (challenge: string, purpose: WebauthnChallenge['purpose']): Promise<WebauthnChallenge | null> =>
    data.global(WebauthnChallengeEntity).findOne({ challenge, purpose }),

  /**
   * Uses the challenge, once, before its end. SQL: one conditional UPDATE, so of two responses racing
   * for one challenge exactly one gets it.
   */
  use: async (id: string, now: Date): Promise<boolean> => {
    const [row] = await data.sql<{ id: string }[]>(
      `WITH used AS (
         UPDATE webauthn_challenges SET used_at = $2
          WHERE id = $1 AND used_at IS NULL AND expires_at > $2
          RETURNING id
       )
       SELECT id FROM used`,
      [id, now],
    );
    return row !== undefined;
  },
});
