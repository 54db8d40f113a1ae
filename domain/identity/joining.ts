import { DomainError } from '../kernel/errors';
import type { OperationContext } from '../kernel/operation';
import type { Role } from '../kernel/permissions';
import { membersIn } from './repository/members';

/**
 * Adds a person to the call's workspace with a role, creating the user on first sight of the address:
 * what `member.add` does, and `member.invite` before it mails them. Answers their user id; a person
 * already a member is refused (a role is changed with set-role).
 */
export async function addToWorkspace(ctx: OperationContext, email: string, role: Role): Promise<string> {
  const userId = await membersIn(ctx.data).add(email, role);
  if (!userId)
    throw new DomainError(
      'conflict',
      `${email} is already a member; use member set-role to change the role.`,
    );
  return userId;
}
