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

export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);
export const isRole = (r: string): r is Role => (ROLES as readonly string[]).includes(r);

/** True when `held` is at least `minimum` in the order viewer < member < admin < owner. */
export const roleAtLeast = (held: Role, minimum: Role): boolean =>
  ROLES.indexOf(held) >= ROLES.indexOf(minimum);

/** What a route or tool needs: the key's scope AND the owner's live role; the narrower wins. */
export type Requirement = { scope: Scope; minRole: Role };
