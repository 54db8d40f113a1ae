import type { DeliverabilityLimits } from './deliverability';
import { ROLES, type Role, type Scope } from '../kernel/permissions';
import {
  clockDefault,
  entity,
  IDENTITY,
  inWorkspace,
  lengthCheck,
  nowDefault,
  oneOfCheck,
  references,
  uuidKey,
} from '../kernel/entity';

export const WORKSPACE_STATUSES = ['active', 'suspended'] as const;

export type Workspace = {
  id: string;
  name: string;
  timezone: string;
  industry: string;
  status: (typeof WORKSPACE_STATUSES)[number];
  created_at: Date;
  /** SHA-256 of the secret the inbound-email route requires; null until an admin issues one. */
  inbound_email_secret_hash: string | null;
  /** The campaign brake's thresholds where the workspace tightened them; null: the defaults. */
  deliverability: DeliverabilityLimits | null;
  /** What its quote pages say of the seller (seller-profile.ts); each null until an admin sets it. */
  seller_name: string | null;
  seller_address: string | null;
  seller_email: string | null;
  seller_phone: string | null;
  /** The terms a quote is accepted under: a link or a text, never both. */
  seller_terms_url: string | null;
  seller_terms_text: string | null;
  /**
   * Whether approving a parked request takes a second person: the member who owns the key that asked
   * may not approve it (`workspace approvals --distinct true`). False by default, so a workspace with
   * one admin can still approve its assistant's requests.
   */
  distinct_approver: boolean;
};
export const WorkspaceEntity = entity<Workspace>({
  name: 'Workspace',
  tableName: 'workspaces',
  columns: {
    id: uuidKey('workspaces'),
    name: { type: 'text' },
    timezone: { type: 'text', default: 'UTC' },
    industry: { type: 'text', default: '' },
    status: { type: 'text', default: 'active' },
    created_at: nowDefault,
    inbound_email_secret_hash: { type: 'text', nullable: true },
    deliverability: { type: 'jsonb', nullable: true },
    seller_name: { type: 'text', nullable: true },
    seller_address: { type: 'text', nullable: true },
    seller_email: { type: 'text', nullable: true },
    seller_phone: { type: 'text', nullable: true },
    seller_terms_url: { type: 'text', nullable: true },
    seller_terms_text: { type: 'text', nullable: true },
    distinct_approver: { type: 'boolean', default: false },
  },
  checks: [
    lengthCheck('workspaces', 'name', 1, 200),
    oneOfCheck('workspaces', 'status', WORKSPACE_STATUSES),
    lengthCheck('workspaces', 'seller_name', 1, 200),
    lengthCheck('workspaces', 'seller_address', 1, 500),
    lengthCheck('workspaces', 'seller_email', 1, 254),
    lengthCheck('workspaces', 'seller_phone', 1, 40),
    lengthCheck('workspaces', 'seller_terms_url', 1, 2000),
    lengthCheck('workspaces', 'seller_terms_text', 1, 5000),
    {
      name: 'workspaces_seller_terms_check',
      expression: '((seller_terms_url IS NULL) OR (seller_terms_text IS NULL))',
    },
  ],
});

export type User = { id: string; email: string; created_at: Date };
export const UserEntity = entity<User>({
  name: 'User',
  tableName: 'users',
  columns: { id: uuidKey('users'), email: { type: 'text' }, created_at: nowDefault },
  uniques: [{ name: 'users_email_key', columns: ['email'] }],
  checks: [
    { name: 'users_email_check', expression: "((email = lower(btrim(email))) AND (email ~~ '%_@_%'::text))" },
  ],
});

export type Membership = {
  workspace_id: string;
  user_id: string;
  role: Role;
  created_at: Date;
  updated_at: Date;
};
export const MembershipEntity = entity<Membership>({
  name: 'Membership',
  tableName: 'memberships',
  columns: {
    workspace_id: { type: 'uuid', primary: true, primaryKeyConstraintName: 'memberships_pkey' },
    user_id: { type: 'uuid', primary: true, primaryKeyConstraintName: 'memberships_pkey' },
    role: { type: 'text' },
    created_at: nowDefault,
    updated_at: nowDefault,
  },
  relations: { ...inWorkspace('memberships'), user: references('memberships', 'user_id', 'User') },
  checks: [oneOfCheck('memberships', 'role', ROLES)],
});

export type ApiKey = {
  id: string;
  workspace_id: string;
  owner_user_id: string;
  name: string;
  environment: string;
  prefix: string;
  fingerprint: Buffer;
  scopes: Scope[];
  allowed_cidrs: string[];
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
  /**
   * `key`: a secret the workspace's software presents. `assistant`: an assistant connection a member
   * granted over OAuth, presented as the authorization server's access tokens; its fingerprint is
   * random and no secret hashes to it.
   */
  kind: CredentialKind;
};
const CREDENTIAL_KINDS = ['key', 'assistant'] as const;
type CredentialKind = (typeof CREDENTIAL_KINDS)[number];
export const ApiKeyEntity = entity<ApiKey>({
  name: 'ApiKey',
  tableName: 'api_keys',
  columns: {
    id: uuidKey('api_keys'),
    workspace_id: { type: 'uuid' },
    owner_user_id: { type: 'uuid' },
    name: { type: 'text' },
    environment: { type: 'text', default: 'live' },
    prefix: { type: 'text' },
    fingerprint: { type: 'bytea' },
    scopes: { type: 'text', array: true },
    allowed_cidrs: { type: 'cidr', array: true, default: () => "'{}'" },
    expires_at: { type: 'timestamptz' },
    revoked_at: { type: 'timestamptz', nullable: true },
    created_at: nowDefault,
    kind: { type: 'text', default: 'key' },
  },
  relations: {
    ...inWorkspace('api_keys'),
    owner: references('api_keys', 'owner_user_id', 'User', { cascade: false }),
  },
  uniques: [{ name: 'api_keys_fingerprint_key', columns: ['fingerprint'] }],
  checks: [
    lengthCheck('api_keys', 'name', 1, 200),
    { name: 'api_keys_fingerprint_check', expression: '(length(fingerprint) = 32)' },
    { name: 'api_keys_scopes_check', expression: '(cardinality(scopes) > 0)' },
    oneOfCheck('api_keys', 'kind', CREDENTIAL_KINDS),
  ],
  // Newest first per workspace: a DESC column, which TypeORM cannot declare (the migration made it).
  indices: [{ name: 'api_keys_workspace', columns: ['workspace_id', 'created_at'], synchronize: false }],
});

/** One row per key per minute, shared by every API process (UNLOGGED: a crash may forget a minute). */
export type RateLimitWindow = { key_id: string; window_start: Date; hits: number };
export const RateLimitWindowEntity = entity<RateLimitWindow>({
  name: 'RateLimitWindow',
  tableName: 'rate_limit_windows',
  columns: {
    key_id: { type: 'uuid', primary: true, primaryKeyConstraintName: 'rate_limit_windows_pkey' },
    window_start: { type: 'timestamptz', primary: true, primaryKeyConstraintName: 'rate_limit_windows_pkey' },
    hits: { type: 'integer' },
  },
});

export const DEVICE_TYPES = ['singleDevice', 'multiDevice'] as const;

/** A member's WebAuthn credential: what verifies their signatures, and the counter they carry. */
export type Passkey = {
  id: string;
  user_id: string;
  /** The credential's id as the browser names it (base64url). */
  credential_id: string;
  /** The COSE public key the authenticator gave at registration. */
  public_key: Buffer;
  /** bigint: PostgreSQL's driver returns it as a string. */
  sign_count: string;
  transports: string[];
  /** Whether the credential lives on one device or is synced between a person's devices. */
  device_type: (typeof DEVICE_TYPES)[number];
  backed_up: boolean;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
};
export const PasskeyEntity = entity<Passkey>({
  name: 'Passkey',
  tableName: 'passkeys',
  columns: {
    id: uuidKey('passkeys'),
    user_id: { type: 'uuid' },
    credential_id: { type: 'text' },
    public_key: { type: 'bytea' },
    sign_count: { type: 'bigint', default: 0 },
    transports: { type: 'text', array: true, default: () => "'{}'" },
    device_type: { type: 'text' },
    backed_up: { type: 'boolean' },
    name: { type: 'text' },
    created_at: clockDefault,
    last_used_at: { type: 'timestamptz', nullable: true },
  },
  relations: { user: references('passkeys', 'user_id', 'User') },
  uniques: [{ name: 'passkeys_credential_id_key', columns: ['credential_id'] }],
  checks: [
    {
      name: 'passkeys_credential_id_check',
      expression:
        "((credential_id ~ '^[A-Za-z0-9_-]+$'::text) AND ((length(credential_id) >= 16) AND (length(credential_id) <= 1366)))",
    },
    { name: 'passkeys_sign_count_check', expression: '(sign_count >= 0)' },
    oneOfCheck('passkeys', 'device_type', DEVICE_TYPES),
    lengthCheck('passkeys', 'name', 1, 100),
  ],
  indices: [{ name: 'passkeys_user', columns: ['user_id', 'created_at'] }],
});

/** Why a session ended: its member signed out, an operator revoked it, or their membership changed. */
export const SESSION_ENDINGS = ['signed_out', 'revoked', 'removed', 'demoted'] as const;
export type SessionEnding = (typeof SESSION_ENDINGS)[number];

/** A signed-in browser: the cookie holds the secret, the row its SHA-256. */
export type ConsoleSession = {
  id: string;
  user_id: string;
  token_fingerprint: Buffer;
  created_at: Date;
  last_seen_at: Date;
  /** The absolute end, however active the session stays. */
  expires_at: Date;
  ended_at: Date | null;
  ended_reason: SessionEnding | null;
  ip: string | null;
  user_agent: string | null;
  /** The passkey it was opened with. */
  passkey_id: string | null;
};
export const ConsoleSessionEntity = entity<ConsoleSession>({
  name: 'ConsoleSession',
  tableName: 'console_sessions',
  columns: {
    id: uuidKey('console_sessions'),
    user_id: { type: 'uuid' },
    token_fingerprint: { type: 'bytea' },
    created_at: clockDefault,
    last_seen_at: { type: 'timestamptz' },
    expires_at: { type: 'timestamptz' },
    ended_at: { type: 'timestamptz', nullable: true },
    ended_reason: { type: 'text', nullable: true },
    ip: { type: 'inet', nullable: true },
    user_agent: { type: 'text', nullable: true },
    passkey_id: { type: 'uuid', nullable: true },
  },
  relations: {
    user: references('console_sessions', 'user_id', 'User'),
    passkey: references('console_sessions', 'passkey_id', 'Passkey', { setNull: true }),
  },
  uniques: [{ name: 'console_sessions_token_fingerprint_key', columns: ['token_fingerprint'] }],
  checks: [
    { name: 'console_sessions_token_fingerprint_check', expression: '(length(token_fingerprint) = 32)' },
    oneOfCheck('console_sessions', 'ended_reason', SESSION_ENDINGS),
    { name: 'console_sessions_user_agent_check', expression: '(length(user_agent) <= 500)' },
    { name: 'console_sessions_ended_check', expression: '((ended_at IS NULL) = (ended_reason IS NULL))' },
  ],
  // Newest first (DESC) and partial, which the migration made.
  indices: [
    { name: 'console_sessions_user', columns: ['user_id', 'created_at'], synchronize: false },
    { name: 'console_sessions_live', columns: ['user_id'], synchronize: false },
    { name: 'console_sessions_passkey', columns: ['passkey_id'], synchronize: false },
  ],
});

/** A one-time sign-in link: its secret's SHA-256, and the browser that asked for it (its binding's). */
export type SignInLink = {
  id: string;
  user_id: string;
  token_fingerprint: Buffer;
  browser_fingerprint: Buffer;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  ip: string | null;
};
export const SignInLinkEntity = entity<SignInLink>({
  name: 'SignInLink',
  tableName: 'sign_in_links',
  columns: {
    id: uuidKey('sign_in_links'),
    user_id: { type: 'uuid' },
    token_fingerprint: { type: 'bytea' },
    browser_fingerprint: { type: 'bytea' },
    created_at: clockDefault,
    expires_at: { type: 'timestamptz' },
    used_at: { type: 'timestamptz', nullable: true },
    ip: { type: 'inet', nullable: true },
  },
  relations: { user: references('sign_in_links', 'user_id', 'User') },
  uniques: [{ name: 'sign_in_links_token_fingerprint_key', columns: ['token_fingerprint'] }],
  checks: [
    { name: 'sign_in_links_token_fingerprint_check', expression: '(length(token_fingerprint) = 32)' },
    { name: 'sign_in_links_browser_fingerprint_check', expression: '(length(browser_fingerprint) = 32)' },
  ],
  indices: [{ name: 'sign_in_links_user', columns: ['user_id', 'created_at'] }],
});

/**
 * A request for a sign-in link, kept for the rate limits' window: by a fingerprint of the address asked
 * for (never the address: most requests an attacker makes are for addresses that are nobody's) and the
 * client's address.
 */
export type SignInRequest = {
  id: string;
  address_fingerprint: Buffer;
  ip: string | null;
  requested_at: Date;
};
export const SignInRequestEntity = entity<SignInRequest>({
  name: 'SignInRequest',
  tableName: 'sign_in_requests',
  columns: {
    id: {
      type: 'bigint',
      primary: true,
      generated: IDENTITY,
      primaryKeyConstraintName: 'sign_in_requests_pkey',
    },
    address_fingerprint: { type: 'bytea' },
    ip: { type: 'inet', nullable: true },
    requested_at: { type: 'timestamptz' },
  },
  checks: [
    { name: 'sign_in_requests_address_fingerprint_check', expression: '(length(address_fingerprint) = 32)' },
  ],
  indices: [
    { name: 'sign_in_requests_address', columns: ['address_fingerprint', 'requested_at'] },
    { name: 'sign_in_requests_ip', columns: ['ip', 'requested_at'], synchronize: false },
    { name: 'sign_in_requests_at', columns: ['requested_at'] },
  ],
});

const CHALLENGE_PURPOSES = ['register', 'sign_in', 'decision'] as const;
type ChallengePurpose = (typeof CHALLENGE_PURPOSES)[number];

/**
 * A WebAuthn challenge handed to a browser, usable once before `expires_at`: to register a passkey (a
 * user's), to sign in (a browser's, by its binding), or to decide an approval (a user's, bound to the
 * approval and the digest it decides through `nonce`).
 */
export type WebauthnChallenge = {
  id: string;
  purpose: ChallengePurpose;
  /** base64url, as the browser signs it in clientDataJSON. */
  challenge: string;
  nonce: Buffer | null;
  user_id: string | null;
  browser_fingerprint: Buffer | null;
  session_id: string | null;
  approval_id: string | null;
  digest: string | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
};
export const WebauthnChallengeEntity = entity<WebauthnChallenge>({
  name: 'WebauthnChallenge',
  tableName: 'webauthn_challenges',
  columns: {
    id: uuidKey('webauthn_challenges'),
    purpose: { type: 'text' },
    challenge: { type: 'text' },
    nonce: { type: 'bytea', nullable: true },
    user_id: { type: 'uuid', nullable: true },
    browser_fingerprint: { type: 'bytea', nullable: true },
    session_id: { type: 'uuid', nullable: true },
    approval_id: { type: 'uuid', nullable: true },
    digest: { type: 'text', nullable: true },
    created_at: clockDefault,
    expires_at: { type: 'timestamptz' },
    used_at: { type: 'timestamptz', nullable: true },
  },
  relations: {
    user: references('webauthn_challenges', 'user_id', 'User', { nullable: true }),
    session: references('webauthn_challenges', 'session_id', 'ConsoleSession', { nullable: true }),
  },
  uniques: [{ name: 'webauthn_challenges_challenge_key', columns: ['challenge'] }],
  checks: [
    oneOfCheck('webauthn_challenges', 'purpose', CHALLENGE_PURPOSES),
    {
      name: 'webauthn_challenges_parts_check',
      expression:
        "(((purpose <> 'register'::text) OR (user_id IS NOT NULL)) AND ((purpose <> 'sign_in'::text) OR (browser_fingerprint IS NOT NULL)) AND ((purpose <> 'decision'::text) OR ((user_id IS NOT NULL) AND (approval_id IS NOT NULL) AND (digest IS NOT NULL) AND (nonce IS NOT NULL))))",
    },
  ],
  indices: [
    { name: 'webauthn_challenges_expires', columns: ['expires_at'] },
    { name: 'webauthn_challenges_user', columns: ['user_id'], synchronize: false },
    { name: 'webauthn_challenges_session', columns: ['session_id'], synchronize: false },
  ],
});

const MEMBER_MAIL_KINDS = ['sign_in_link', 'invitation', 'approval_waiting'] as const;
export type MemberMailKind = (typeof MEMBER_MAIL_KINDS)[number];
const MEMBER_MAIL_STATUSES = ['queued', 'sending', 'retrying', 'sent', 'failed'] as const;
type MemberMailStatus = (typeof MEMBER_MAIL_STATUSES)[number];

/**
 * A mail to a member, waiting for its workflow or sent: its subject and text sealed (they hold bearer
 * links), and wiped once it left or failed. The address is the user's, read when it leaves.
 */
export type MemberMail = {
  id: string;
  user_id: string;
  /** The workspace it is about, when it is about one (an invitation, a request waiting). */
  workspace_id: string | null;
  kind: MemberMailKind;
  status: MemberMailStatus;
  sealed: Buffer | null;
  attempts: number;
  error: string | null;
  provider_message_id: string | null;
  created_at: Date;
  started_at: Date | null;
  sent_at: Date | null;
};
export const MemberMailEntity = entity<MemberMail>({
  name: 'MemberMail',
  tableName: 'member_mail',
  columns: {
    id: uuidKey('member_mail'),
    user_id: { type: 'uuid' },
    workspace_id: { type: 'uuid', nullable: true },
    kind: { type: 'text' },
    status: { type: 'text', default: 'queued' },
    sealed: { type: 'bytea', nullable: true },
    attempts: { type: 'integer', default: 0 },
    error: { type: 'text', nullable: true },
    provider_message_id: { type: 'text', nullable: true },
    created_at: clockDefault,
    started_at: { type: 'timestamptz', nullable: true },
    sent_at: { type: 'timestamptz', nullable: true },
  },
  relations: {
    user: references('member_mail', 'user_id', 'User'),
    workspace: references('member_mail', 'workspace_id', 'Workspace', { nullable: true }),
  },
  checks: [
    oneOfCheck('member_mail', 'kind', MEMBER_MAIL_KINDS),
    oneOfCheck('member_mail', 'status', MEMBER_MAIL_STATUSES),
    {
      name: 'member_mail_sealed_check',
      expression: "((sealed IS NULL) = (status = ANY (ARRAY['sent'::text, 'failed'::text])))",
    },
  ],
  // Partial indexes, which the migration made.
  indices: [
    { name: 'member_mail_unstarted', columns: ['created_at'], synchronize: false },
    { name: 'member_mail_user', columns: ['user_id'] },
    { name: 'member_mail_workspace', columns: ['workspace_id'], synchronize: false },
  ],
});
