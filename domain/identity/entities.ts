import type { DeliverabilityLimits } from './deliverability';
import { ROLES, type Role, type Scope } from '../kernel/permissions';
import {
  entity,
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
};
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
