import type { Requirement } from '../kernel/permissions';

/** Assistant connections are listed and revoked beside the keys, by the same people. */
export const MANAGE_CONNECTIONS: Requirement = { scope: 'business:write', minRole: 'admin' };

/**
 * Any member may connect an assistant to act as them: what it may then do is the narrower of the
 * scopes they grant and their own live role, on every call.
 */
export const CONNECT_ASSISTANT: Requirement = { scope: 'any', minRole: 'viewer' };

/** How long a connection lasts without being granted again (its refresh tokens cannot outlive it). */
export const CONNECTION_DAYS = 90;
