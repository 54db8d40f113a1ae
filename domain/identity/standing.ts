import type { Data } from '../kernel/data';
import { roleRefusal, type Role } from '../kernel/permissions';
import { keysIn, type KeyStanding } from './repository/api-keys';
import { membersIn, membershipsOfUser } from './repository/members';

/** The member of the workspace with this email (as typed, any case) and their role, or undefined. */
export const memberByEmail = (
  data: Data,
  email: string,
): Promise<{ userId: string; role: Role } | undefined> => membersIn(data).byEmail(email);

/** A user's live role in the workspace, or null once they are no member. */
export const roleOf = (data: Data, userId: string): Promise<Role | null> => membersIn(data).roleOf(userId);

/** A key's standing now (live, revoked, expired; its owner and their role): what parked work is checked against. */
export const keyStanding = (data: Data, keyId: string): Promise<KeyStanding | undefined> =>
  keysIn(data).standing(keyId);

/** The workspaces a user is a member of, with the user's live role in each (the console's start). */
export const workspacesOf = (
  data: Data,
  userId: string,
): Promise<{ workspaceId: string; name: string; role: Role }[]> => membershipsOfUser(data, userId);

/**
 * The workspace's members whose live role is at least `minRole`, with it (who may decide its approval
 * requests, to be told one waits).
 */
export const membersAtLeast = async (data: Data, minRole: Role): Promise<{ userId: string; role: Role }[]> =>
  (await membersIn(data).list())
    .filter((m) => roleRefusal(m.role, minRole) === undefined)
    .map((m) => ({ userId: m.user_id, role: m.role }));
