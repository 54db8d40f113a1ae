import type { ApiKey } from './entities/api-key';
import type { Workspace } from './entities/workspace';
import type { Role } from './policy';

export const workspaceView = (w: Workspace) => ({
  id: w.id,
  name: w.name,
  timezone: w.timezone,
  industry: w.industry,
  status: w.status,
  created_at: w.createdAt.toISOString(),
});

export const membershipView = (m: { workspaceId: string; userId: string; email: string; role: Role }) => ({
  workspace_id: m.workspaceId,
  user_id: m.userId,
  email: m.email,
  role: m.role,
});

/** Never includes the key or its fingerprint. */
export const apiKeyView = (k: ApiKey, ownerEmail?: string) => ({
  id: k.id,
  workspace_id: k.workspaceId,
  name: k.name,
  environment: k.environment,
  prefix: k.prefix,
  owner_user_id: k.ownerUserId,
  ...(ownerEmail !== undefined ? { owner_email: ownerEmail } : {}),
  scopes: k.scopes,
  allowed_cidrs: k.allowedCidrs,
  expires_at: k.expiresAt.toISOString(),
  revoked_at: k.revokedAt ? k.revokedAt.toISOString() : null,
  created_at: k.createdAt.toISOString(),
});
