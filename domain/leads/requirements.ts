import type { Requirement } from '../kernel/permissions';

/** What lead operations need, shared by every door's guard and by the operations themselves. */
export const LEADS_READ: Requirement = { scope: 'leads:read', minRole: 'viewer' };
export const LEADS_WRITE: Requirement = { scope: 'leads:write', minRole: 'member' };
