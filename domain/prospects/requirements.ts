import type { Requirement } from '../kernel/permissions';

export const PROSPECTS_READ: Requirement = { scope: 'prospects:read', minRole: 'viewer' };
export const PROSPECTS_WRITE: Requirement = { scope: 'prospects:write', minRole: 'member' };
