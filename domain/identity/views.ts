import type { Role } from '../kernel/permissions';
import type { ApiKey, Workspace } from './entities';

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
export const apiKeyView = (k: Omit<ApiKey, 'fingerprint'>, ownerEmail?: string) => ({
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
