import { WRITE } from '../kernel/operation';
import type { Requirement } from '../kernel/permissions';

/** Keys are made in the application's settings (here, the operator door); no key mints keys. */
export const MANAGE_KEYS: Requirement = { scope: 'business:write', minRole: 'admin' };

/** People and their roles are managed in the application's settings (here, the operator door). */
export const MANAGE_MEMBERS: Requirement = { scope: 'business:write', minRole: 'admin' };

/** What every change to the members shares: the operator door, on the caller's workspace. */
export const MEMBER_CHANGE = {
  requirement: MANAGE_MEMBERS,
  reach: 'workspace',
  operatorOnly: true,
  ...WRITE,
} as const;
