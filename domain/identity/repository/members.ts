import type { Data } from '../../kernel/data';
import { DomainError } from '../../kernel/errors';
import type { Role } from '../../kernel/permissions';
import { MembershipEntity, UserEntity, type Membership } from '../entities';
import { workspaceOf } from './workspaces';

/** The workspace's members: its memberships, and the users they name by email. */
export const membersIn = (data: Data) => {
  const memberships = data.scoped(MembershipEntity);
  const userIdOf = async (email: string) =>
    (await data.global(UserEntity).findOne({ email }, { select: { id: true } }))?.id;
  return {
    /** The user id of a member of the workspace, or undefined. */
    idOf: async (email: string): Promise<string | undefined> => {
      const userId = await userIdOf(email);
      return userId && (await memberships.exists({ user_id: userId })) ? userId : undefined;
    },
    /** A member by email as a person typed it (trimmed, any case), with their live role. */
    byEmail: async (email: string): Promise<{ userId: string; role: Role } | undefined> => {
      const userId = await userIdOf(email.trim().toLowerCase());
      const member = userId && (await memberships.findOne({ user_id: userId }, { select: { role: true } }));
      return member ? { userId: userId, role: member.role } : undefined;
    },
    /** The members with their emails and roles, by email. SQL: a join, the email being the user's. */
    list: (): Promise<MemberRow[]> =>
      data.sql<MemberRow[]>(
        `SELECT m.user_id, u.email, m.role, m.created_at
           FROM memberships m JOIN users u ON u.id = m.user_id
          WHERE m.workspace_id = $1 ORDER BY u.email`,
        [workspaceOf(data)],
      ),
    /** A user's live role in the workspace, or null once they are no member. */
    roleOf: async (userId: string): Promise<Role | null> =>
      (await memberships.findOne({ user_id: userId }, { select: { role: true } }))?.role ?? null,
    /**
     * Adds the person (a user from first sight of the email), answering their user id, or undefined
     * when they are already a member. SQL: two ON CONFLICT upserts, so a concurrent add finds no gap
     * between a read and a write (the user's id is answered whether or not it was new).
     */
    add: async (email: string, role: Role): Promise<string | undefined> => {
      const [user] = await data.sql<{ id: string }[]>(
        `INSERT INTO users (email) VALUES ($1) ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email RETURNING id`,
        [email],
      );
      const added = await data.sql<unknown[]>(
        `INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING user_id`,
        [workspaceOf(data), user!.id, role],
      );
      return added.length > 0 ? user!.id : undefined;
    },
    /**
     * The membership with its new role and the role it had (read under the row's lock, so a demotion is
     * told apart from a promotion whatever runs meanwhile), or undefined when the email is no member.
     */
    setRole: async (email: string, role: Role): Promise<(Membership & { previous: Role }) | undefined> => {
      const userId = await userIdOf(email);
      if (!userId) return undefined;
      const before = await memberships.findOne({ user_id: userId }, { lock: true, select: { role: true } });
      if (!before) return undefined;
      const [changed] = await memberships.update({ user_id: userId }, { role, updated_at: () => 'now()' });
      return changed && { ...changed, previous: before.role };
    },
    /** The membership as it was, or undefined when the email is no member. */
    remove: async (email: string): Promise<Membership | undefined> => {
      const userId = await userIdOf(email);
      if (!userId) return undefined;
      const [removed] = await memberships.delete({ user_id: userId });
      return removed;
    },
  };
};

/** The user id of a member of the call's workspace, by email; `field` names the input that gave the email. */
export async function ownerIdByEmail(data: Data, email: string, field: string): Promise<string> {
  const id = await membersIn(data).idOf(email);
  if (!id) throw new DomainError('not_found', `${email} is not a member of this workspace.`, { field });
  return id;
}

/** A member as the list shows them. */
export type MemberRow = { user_id: string; email: string; role: Role; created_at: Date };

/**
 * The workspaces a user is a member of, with their names and the user's role, by name: where the
 * console offers to go. SQL: across workspaces (a user's memberships are no one workspace's rows).
 */
export const membershipsOfUser = (
  data: Data,
  userId: string,
): Promise<{ workspaceId: string; name: string; role: Role }[]> =>
  data.sql(
    `SELECT m.workspace_id AS "workspaceId", w.name, m.role
       FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
      WHERE m.user_id = $1 ORDER BY w.name, w.id`,
    [userId],
  );
