import { roleAtLeast, type Role } from '../kernel/permissions';

/** Only an admin or owner of the workspace may decide a parked request, and run it. */
export const roleAtLeastAdmin = (role: Role | null | undefined): boolean =>
  !!role && roleAtLeast(role, 'admin');
