import type { Requirement } from '../kernel/permissions';

/** Opportunities, quotes and invoices are the business's records (the spec's business scopes). */
export const SALES_READ: Requirement = { scope: 'business:read', minRole: 'viewer' };
export const SALES_WRITE: Requirement = { scope: 'business:write', minRole: 'member' };
