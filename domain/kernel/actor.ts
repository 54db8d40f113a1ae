import type { CallContext } from './audit';
import type { Principal, Role, Scope } from './permissions';

/**
 * Who runs an operation: an API key (REST, MCP) acting with its owner's live role; a member of a
 * workspace acting on their own authority with their live role (an approver, whose approval runs a
 * parked request); an AI agent's run, confined to its workspace and to the scopes its type needs, never
 * to another agent's setup; or the operator at the admin CLI (trusted shell access to the deployment),
 * who may name any workspace.
 */
export type Actor =
  | { type: 'key'; principal: Principal; ctx: CallContext }
  | { type: 'member'; userId: string; workspaceId: string; role: Role | null; ctx: CallContext }
  | { type: 'agent'; agentId: string; workspaceId: string; scopes: readonly Scope[]; ctx: CallContext }
  | { type: 'operator'; ctx: CallContext };

export const keyActor = (
  principal: Principal,
  ctx: Omit<CallContext, 'keyId' | 'keyPrefix' | 'actorUserId' | 'clientId'>,
): Actor => ({
  type: 'key',
  principal,
  ctx: {
    ...ctx,
    keyId: principal.keyId,
    keyPrefix: principal.keyPrefix,
    actorUserId: principal.userId,
    ...(principal.client && { clientId: principal.client.id }),
  },
});

export const operatorActor = (ctx: CallContext): Actor => ({ type: 'operator', ctx });

/** The user behind the actor, for records that name an author; the operator and agents are nobody in particular. */
export const actorUserId = (actor: Actor): string | null =>
  actor.type === 'key' ? actor.principal.userId : actor.type === 'member' ? actor.userId : null;

/** How an event or record names who acted. */
export const actorRef = (actor: Actor) => {
  switch (actor.type) {
    case 'key':
      return { type: 'api_key' as const, key_id: actor.principal.keyId, user_id: actor.principal.userId };
    case 'member':
      return { type: 'member' as const, user_id: actor.userId };
    case 'agent':
      return { type: 'agent' as const, agent_id: actor.agentId };
    case 'operator':
      return { type: 'operator' as const };
  }
};

/** The workspace a key, a member or an agent acts in; the operator names one per call. */
export const ownWorkspace = (actor: Actor): string | undefined =>
  actor.type === 'key'
    ? actor.principal.workspaceId
    : actor.type === 'operator'
      ? undefined
      : actor.workspaceId;
