/** Scopes from the spec's table. There is deliberately no all-access scope. */
export const SCOPES = [
  'leads:read',
  'leads:write',
  'prospects:read',
  'prospects:write',
  'campaigns:read',
  'campaigns:write',
  'analytics:read',
  'business:read',
  'business:write',
  'agents:read',
  'agents:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

/** True when `held` is at least `minimum` in the order viewer < member < admin < owner. */
const roleAtLeast = (held: Role, minimum: Role): boolean => ROLES.indexOf(held) >= ROLES.indexOf(minimum);

/**
 * What a route or tool needs: the key's scope AND the owner's live role; the narrower wins. `any`: any
 * valid key (a read of the service's own published contract, such as the event schemas).
 */
export type Requirement = { scope: Scope | 'any'; minRole: Role };

/** The caller behind a key, read afresh on every request (no cache outlives a demotion or revocation). */
export type Principal = {
  keyId: string;
  keyName: string;
  keyPrefix: string;
  environment: string;
  scopes: Scope[];
  workspaceId: string;
  userId: string;
  /** The owner's live role, or null when they are no longer a member. */
  role: Role | null;
  /**
   * When the key is an assistant connection (a member's OAuth consent), the client its access token
   * was issued to: named in the audit row of every call, and on what the call parks for approval.
   */
  client?: { id: string; name: string };
};

/** Returns the real reason a principal may not do something, or undefined when it may. */
export function refusalReason(p: Pick<Principal, 'scopes' | 'role'>, need: Requirement): string | undefined {
  if (need.scope !== 'any' && !p.scopes.includes(need.scope)) return `key lacks scope ${need.scope}`;
  if (p.role === null) return 'key owner is no longer a member of the workspace';
  if (!roleAtLeast(p.role, need.minRole)) return `key owner's role ${p.role} is below ${need.minRole}`;
  return undefined;
}

/** The same for a person acting on their own authority: only their live role counts. */
export function roleRefusal(role: Role | null, minRole: Role): string | undefined {
  if (role === null) return 'not a member of the workspace';
  if (!roleAtLeast(role, minRole)) return `role ${role} is below ${minRole}`;
  return undefined;
}
