import { ROLES, SCOPES, type Role } from '../kernel/permissions';
import { SESSION_ENDINGS, WORKSPACE_STATUSES, type ApiKey, type Workspace } from './entities';
import type { SessionView } from './sessions';
import {
  arrayOf,
  boolean,
  dateTime,
  integer,
  nullable,
  object,
  oneOf,
  openObject,
  string,
  uuid,
} from '../kernel/shapes';

/** A workspace's or a key's name, and a workspace's industry: the database checks the names too. */
export const MAX_NAME_LENGTH = 200;
/** IANA zone names run to 32 characters (America/Argentina/ComodRivadavia). */
export const MAX_TIMEZONE_LENGTH = 64;

export const WORKSPACE = object(
  {
    id: uuid,
    name: string(),
    timezone: string(),
    industry: string(),
    status: string(),
    created_at: dateTime,
  },
  { title: 'Workspace' },
);

/** What `workspace.get` (GET /me) shows: why a key's call is allowed or refused. */
export const ME = object(
  {
    workspace: object({
      id: uuid,
      name: string({ maxLength: MAX_NAME_LENGTH }),
      timezone: string({ maxLength: MAX_TIMEZONE_LENGTH }),
      industry: string({ maxLength: MAX_NAME_LENGTH }),
      status: oneOf(WORKSPACE_STATUSES),
    }),
    key: nullable(
      object({
        name: string({ maxLength: MAX_NAME_LENGTH }),
        environment: oneOf(['live']),
        // A key's scopes are kept without repeats.
        scopes: arrayOf(oneOf(SCOPES), { maxItems: SCOPES.length }),
      }),
    ),
    acting_as: object({ role: nullable(oneOf(ROLES)) }),
  },
  { title: 'Me' },
);

/** The members of a workspace, by email. */
export const MEMBERS = arrayOf(
  object({ user_id: uuid, email: string(), role: oneOf(ROLES), created_at: dateTime }),
  { title: 'Members' },
);

export const MEMBERSHIP = object(
  { workspace_id: uuid, user_id: uuid, email: string(), role: oneOf(ROLES), removed: boolean },
  { title: 'Membership', optional: ['removed'] },
);

/** A key record: never the key or its fingerprint, except `key` once, at creation. */
export const API_KEY = object(
  {
    id: uuid,
    workspace_id: uuid,
    name: string(),
    environment: string(),
    prefix: string(),
    owner_user_id: uuid,
    owner_email: string(),
    scopes: arrayOf(oneOf(SCOPES)),
    allowed_cidrs: arrayOf(string()),
    expires_at: dateTime,
    revoked_at: nullable(dateTime),
    created_at: dateTime,
    last_used_at: nullable({
      ...dateTime,
      description: 'When a request last came with the key (in a list only); null: never.',
    }),
    key: string({ description: 'The key itself, shown this once.' }),
  },
  { title: 'ApiKey', optional: ['owner_email', 'last_used_at', 'key'] },
);

export const AUDIT_ROWS = arrayOf(
  object({
    id: string(),
    at: dateTime,
    door: oneOf(['rest', 'mcp', 'admin', 'activity', 'public', 'agent', 'console', 'oauth']),
    action: string(),
    outcome: oneOf(['allowed', 'refused', 'failed', 'parked']),
    reason: nullable(string()),
    status: nullable(integer()),
    workspace_id: nullable(uuid),
    key_id: nullable(uuid),
    key_prefix: nullable(string()),
    actor_user_id: nullable(uuid),
    request_id: nullable(string()),
    client_ip: nullable(string()),
    client_id: nullable(string({ description: 'The OAuth client an assistant connection called through.' })),
    details: nullable(
      openObject('What else the call recorded: ids it touched, the refusal it met, who it acted for.'),
    ),
  }),
  { title: 'AuditRows' },
);

export const workspaceView = (w: Workspace) => ({
  id: w.id,
  name: w.name,
  timezone: w.timezone,
  industry: w.industry,
  status: w.status,
  created_at: w.created_at.toISOString(),
});

export const membershipView = (m: { workspaceId: string; userId: string; email: string; role: Role }) => ({
  workspace_id: m.workspaceId,
  user_id: m.userId,
  email: m.email,
  role: m.role,
});

/** Never includes the key or its fingerprint. */
export const apiKeyView = (
  k: Omit<ApiKey, 'fingerprint'>,
  ownerEmail?: string,
  lastUsedAt?: Date | null,
) => ({
  id: k.id,
  workspace_id: k.workspace_id,
  name: k.name,
  environment: k.environment,
  prefix: k.prefix,
  owner_user_id: k.owner_user_id,
  ...(ownerEmail !== undefined ? { owner_email: ownerEmail } : {}),
  scopes: k.scopes,
  allowed_cidrs: k.allowed_cidrs,
  expires_at: k.expires_at.toISOString(),
  revoked_at: k.revoked_at ? k.revoked_at.toISOString() : null,
  created_at: k.created_at.toISOString(),
  ...(lastUsedAt !== undefined ? { last_used_at: lastUsedAt ? lastUsedAt.toISOString() : null } : {}),
});

/** What `member.invite` answers: the membership, and where the invitation tells them to sign in. */
export const INVITATION = object(
  {
    workspace_id: uuid,
    user_id: uuid,
    email: string(),
    role: oneOf(ROLES),
    sign_in_url: string({ description: 'The console page the invitation sends them to.' }),
  },
  { title: 'Invitation' },
);

/** What `member.sessions` answers: the member's console sessions, newest first, and how many it ended. */
export const MEMBER_SESSIONS = object(
  {
    email: string(),
    user_id: uuid,
    revoked: integer({ description: 'Sessions ended by this call (with --revoke).' }),
    sessions: arrayOf(
      object(
        {
          id: uuid,
          created_at: dateTime,
          last_seen_at: dateTime,
          expires_at: dateTime,
          ended_at: nullable(dateTime),
          ended_reason: nullable(oneOf(SESSION_ENDINGS)),
          ip: nullable(string()),
          user_agent: nullable(string()),
        },
        { title: 'ConsoleSession' },
      ),
    ),
  },
  { title: 'MemberSessions', optional: ['revoked'] },
);

/** A console session as the operator sees it (never its secret or fingerprint). */
export const sessionView = (s: SessionView) => ({
  id: s.id,
  created_at: s.createdAt.toISOString(),
  last_seen_at: s.lastSeenAt.toISOString(),
  expires_at: s.expiresAt.toISOString(),
  ended_at: s.endedAt ? s.endedAt.toISOString() : null,
  ended_reason: s.endedReason,
  ip: s.ip,
  user_agent: s.userAgent,
});
