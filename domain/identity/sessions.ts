import type { Data } from '../kernel/data';
import { UUID_PATTERN } from '../kernel/validate';
import { clientIp, fingerprintOf, looksLikeToken, newToken } from './bearer-tokens';
import type { SessionEnding } from './entities';
import { consoleSessions, type SessionRow } from './repository/console-sessions';

/** How long a console session lasts: idle, and at most (CONSOLE_SESSION_IDLE_MINUTES, _MAX_HOURS). */
export type SessionSettings = { idleMinutes: number; maxHours: number };

/** A signed-in member, as a console request knows them. */
export type LiveSession = { id: string; userId: string; email: string; createdAt: Date; expiresAt: Date };

/** A session as the member's page lists it (never its secret or fingerprint). */
export type SessionView = {
  id: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
  endedReason: SessionEnding | null;
  ip: string | null;
  userAgent: string | null;
  passkeyId: string | null;
};

/** Sessions a member's page lists at most, newest first. */
const LISTED = 50;
/** A browser's User-Agent is kept to this length (the column's CHECK). */
const USER_AGENT_KEPT = 500;

const live = (row: SessionRow): LiveSession => ({
  id: row.id,
  userId: row.user_id,
  email: row.email,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/**
 * Opens a session for a user who has just proven who they are (a passkey, or a redeemed link), answering
 * the cookie's secret (shown to the browser once, stored as its SHA-256) and the session.
 */
export async function openSession(
  data: Data,
  s: { userId: string; passkeyId: string | null; ip: string | null; userAgent: string | null },
  settings: SessionSettings,
  now: Date,
): Promise<{ token: string; session: LiveSession }> {
  const token = newToken();
  const row = await consoleSessions(data).open({
    userId: s.userId,
    fingerprint: fingerprintOf(token),
    passkeyId: s.passkeyId,
    ip: clientIp(s.ip),
    userAgent: s.userAgent ? s.userAgent.slice(0, USER_AGENT_KEPT) : null,
    now,
    maxHours: settings.maxHours,
  });
  return { token, session: live(row) };
}

/**
 * Why a cookie's secret signs nobody in: no session has it (`unknown`), it ended (signed out, revoked,
 * its member removed or demoted), it expired (12 hours, or a lower limit set since), or it sat idle.
 */
export type SessionOver = 'unknown' | 'expired' | 'idle' | SessionEnding;

/**
 * The session a cookie's secret names when it is live, or why it is not, for the door's audit row (the
 * person is told only to sign in); a live one is marked seen (at most once a minute).
 */
export async function presentedSession(
  data: Data,
  token: string,
  settings: SessionSettings,
  now: Date,
): Promise<{ session: LiveSession } | { over: SessionOver }> {
  if (!looksLikeToken(token)) return { over: 'unknown' };
  const row = await consoleSessions(data).presented(
    fingerprintOf(token),
    now,
    settings.idleMinutes,
    settings.maxHours,
  );
  if (!row) return { over: 'unknown' };
  return row.over ? { over: row.over } : { session: live(row) };
}

/**
 * The session a cookie's secret names, or null when it is unknown, ended, idle past the limit or past its
 * end; a live one is marked seen (at most once a minute). Null says nothing of which.
 */
export async function liveSession(
  data: Data,
  token: string,
  settings: SessionSettings,
  now: Date,
): Promise<LiveSession | null> {
  const presented = await presentedSession(data, token, settings, now);
  return 'session' in presented ? presented.session : null;
}

/** Ends a session: its member signed out, or it was revoked. Ending an ended one changes nothing. */
export async function endSession(
  data: Data,
  sessionId: string,
  reason: 'signed_out' | 'revoked',
): Promise<void> {
  if (UUID_PATTERN.test(sessionId)) await consoleSessions(data).end(sessionId, reason);
}

/**
 * Ends every session of a user at once (every revocation, a removal from a workspace, a demotion),
 * in the caller's transaction; answers how many were live.
 */
export const endSessionsOf = (data: Data, userId: string, reason: SessionEnding): Promise<number> =>
  consoleSessions(data).endAllOf(userId, reason);

/** A user's sessions, newest first, live or not, for their page and the operator's list. */
export async function sessionsOf(data: Data, userId: string): Promise<SessionView[]> {
  const rows = await consoleSessions(data).of(userId, LISTED);
  return rows.map((r) => ({
    id: r.id,
    createdAt: r.created_at,
    lastSeenAt: r.last_seen_at,
    expiresAt: r.expires_at,
    endedAt: r.ended_at,
    endedReason: r.ended_reason,
    ip: r.ip,
    userAgent: r.user_agent,
    passkeyId: r.passkey_id,
  }));
}
