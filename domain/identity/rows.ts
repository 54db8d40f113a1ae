import type { EntityManager } from 'typeorm';
import { DomainError } from '../kernel/errors';
import type { Role, Scope } from '../kernel/permissions';

type Query = Pick<EntityManager, 'query'>;

export type WorkspaceRow = {
  id: string;
  name: string;
  timezone: string;
  industry: string;
  status: string;
  created_at: Date;
};

export type ApiKeyRow = {
  id: string;
  workspace_id: string;
  owner_user_id: string;
  name: string;
  environment: string;
  prefix: string;
  scopes: Scope[];
  allowed_cidrs: string[];
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
};

export const WORKSPACE_COLUMNS = 'id, name, timezone, industry, status, created_at';
/** Never the fingerprint. */
export const API_KEY_COLUMNS = `id, workspace_id, owner_user_id, name, environment, prefix, scopes,
  allowed_cidrs::text[] AS allowed_cidrs, expires_at, revoked_at, created_at`;

export const workspaceView = (w: WorkspaceRow) => ({
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
export const apiKeyView = (k: ApiKeyRow, ownerEmail?: string) => ({
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
});

/** The user id of a member of the workspace, by email; `field` names the input that gave the email. */
export async function memberIdByEmail(m: Query, workspaceId: string, email: string, field: string) {
  const [owner] = await m.query<{ id: string }[]>(
    `SELECT u.id FROM users u JOIN memberships ms ON ms.user_id = u.id WHERE ms.workspace_id = $1 AND u.email = $2`,
    [workspaceId, email],
  );
  if (!owner) throw new DomainError('not_found', `${email} is not a member of this workspace.`, { field });
  return owner.id;
}
