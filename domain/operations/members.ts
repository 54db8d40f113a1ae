import type { DataSource, EntityManager } from 'typeorm';
import * as yup from 'yup';
import { operationAudit, writeAudit, type CallContext } from '../audit';
import { DomainError, notFound } from '../errors';
import { ROLES, type Role } from '../policy';
import { emailSchema, validate } from '../validate';
import { membershipView } from '../views';

const target = {
  workspaceId: yup.string().uuid('workspace must be a UUID').required('workspace is required'),
  email: emailSchema.required('email is required'),
};
const withRole = yup.object({
  ...target,
  role: yup
    .mixed<Role>()
    .oneOf(ROLES, `role must be one of ${ROLES.join(', ')}`)
    .required('role is required'),
});

export async function requireWorkspace(m: EntityManager, workspaceId: string): Promise<void> {
  const rows: unknown[] = await m.query('SELECT 1 FROM workspaces WHERE id = $1', [workspaceId]);
  if (rows.length === 0) throw notFound('workspace');
}

/** Adds a person (creating the user on first sight) to a workspace with a role. */
export async function addMember(db: DataSource, ctx: CallContext, input: unknown) {
  const { workspaceId, email, role } = validate(withRole, input);
  return db.transaction(async (m) => {
    await requireWorkspace(m, workspaceId);
    const [user] = await m.query<{ id: string }[]>(
      `INSERT INTO users (email) VALUES ($1)
       ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email RETURNING id`,
      [email],
    );
    const inserted: unknown[] = await m.query(
      `INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING user_id`,
      [workspaceId, user!.id, role],
    );
    if (inserted.length === 0) {
      throw new DomainError(
        'conflict',
        `${email} is already a member; use member set-role to change the role.`,
      );
    }
    await writeAudit(m, operationAudit(ctx, 'member.add', workspaceId, { email, role }));
    return membershipView({ workspaceId, userId: user!.id, email, role });
  });
}

/** Changes a member's role; keys they own carry the new role from their next call. */
export async function setMemberRole(db: DataSource, ctx: CallContext, input: unknown) {
  const { workspaceId, email, role } = validate(withRole, input);
  return db.transaction(async (m) => {
    const rows = await m.query<[{ user_id: string }[], number]>(
      `UPDATE memberships ms SET role = $3, updated_at = now()
       FROM users u WHERE u.id = ms.user_id AND ms.workspace_id = $1 AND u.email = $2
       RETURNING ms.user_id`,
      [workspaceId, email, role],
    );
    const userId = rows[0][0]?.user_id;
    if (!userId) throw notFound('member');
    await writeAudit(m, operationAudit(ctx, 'member.set_role', workspaceId, { email, role }));
    return membershipView({ workspaceId, userId, email, role });
  });
}

/** Removes a member; their keys stay on record but are refused from the next call. */
export async function removeMember(db: DataSource, ctx: CallContext, input: unknown) {
  const { workspaceId, email } = validate(yup.object(target), input);
  return db.transaction(async (m) => {
    const rows = await m.query<[{ user_id: string; role: Role }[], number]>(
      `DELETE FROM memberships ms USING users u
       WHERE u.id = ms.user_id AND ms.workspace_id = $1 AND u.email = $2
       RETURNING ms.user_id, ms.role`,
      [workspaceId, email],
    );
    const removed = rows[0][0];
    if (!removed) throw notFound('member');
    await writeAudit(m, operationAudit(ctx, 'member.remove', workspaceId, { email }));
    return {
      ...membershipView({ workspaceId, userId: removed.user_id, email, role: removed.role }),
      removed: true,
    };
  });
}
