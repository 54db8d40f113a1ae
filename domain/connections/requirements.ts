import type { Requirement } from '../kernel/permissions';

/** Reading the connected systems. */
export const CONNECTIONS_READ: Requirement = { scope: 'business:read', minRole: 'viewer' };
/** Connecting or disconnecting a system. */
export const CONNECTIONS_CHANGE: Requirement = { scope: 'business:write', minRole: 'admin' };
