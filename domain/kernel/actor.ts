import type { CallContext } from './audit';
import type { Principal, Role } from './permissions';

/**
 * Who runs an operation: an API key (REST, MCP) acting with its owner's live role; a member of a
 * workspace acting on their own authority with their live role (an approver, whose approval runs a
 * parked request); or the operator at the admin CLI (trusted shell access to the deployment), who may
 * name any workspace.
 */
export type Actor =
  | { type: 'key'; principal: Principal; ctx: CallContext }
  | { type: 'member'; userId: string; workspaceId: string; role: Role | null; ctx: CallContext }
  | { type: 'operator'; ctx: CallContext };

export const keyActor = (
  principal: Principal,
  ctx: Omit<CallContext, 'keyId' | 'keyPrefix' | 'actorUserId'>,
): Actor => ({
  type: 'key',
  principal,
  ctx: { ...ctx, keyId: principal.keyId, keyPrefix: principal.keyPrefix, actorUserId: principal.userId },
});

export const operatorActor = (ctx: CallContext): Actor => ({ type: 'operator', ctx });

/** The user behind the actor, for records that name an author; the operator is nobody in particular. */
export const actorUserId = (actor: Actor): string | null =>
  actor.type === 'key' ? actor.principal.userId : actor.type === 'member' ? actor.userId : null;

/** How an event or record names who acted. */
export const actorRef = (actor: Actor) =>
  actor.type === 'key'
    ? { type: 'api_key' as const, key_id: actor.principal.keyId, user_id: actor.principal.userId }
    : actor.type === 'member'
      ? { type: 'member' as const, user_id: actor.userId }
      : { type: 'operator' as const };
