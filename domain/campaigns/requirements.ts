import type { Requirement } from '../kernel/permissions';

export const CAMPAIGNS_READ: Requirement = { scope: 'campaigns:read', minRole: 'viewer' };
export const CAMPAIGNS_WRITE: Requirement = { scope: 'campaigns:write', minRole: 'member' };
