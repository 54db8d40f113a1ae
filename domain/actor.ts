import type { CallContext } from './audit';
import { DomainError } from './errors';
import { refusalReason, type Principal } from './operations/authenticate';
import type { Requirement } from './policy';

/**
 * Who runs an operation: an API key (REST, MCP) acting with its owner's live role, or the operator
 * at the admin CLI (trusted shell access to the deployment).
 */
export type Actor =
  { type: 'key'; principal: Principal; ctx: CallContext } | { type: 'operator'; ctx: CallContext };

export const keyActor = (
  principal: Principal,
  ctx: Omit<CallContext, 'keyId' | 'keyPrefix' | 'actorUserId'>,
): Actor => ({
  type: 'key',
  principal,
  ctx: { ...ctx, keyId: principal.keyId, keyPrefix: principal.keyPrefix, actorUserId: principal.userId },
});

export const operatorActor = (ctx: CallContext): Actor => ({ type: 'operator', ctx });

/** The permission check every operation runs first; refusals carry the real reason for the audit log only. */
export function authorize(actor: Actor, need: Requirement): void {
  if (actor.type === 'operator') return;
  const reason = refusalReason(actor.principal, need);
  if (reason) throw new DomainError('forbidden', 'forbidden', {}, reason);
}

/** The workspace a key may touch; undefined for the operator, who may touch any. */
export const actorWorkspace = (actor: Actor): string | undefined =>
  actor.type === 'key' ? actor.principal.workspaceId : undefined;

/** How an event or record names who acted. */
export const actorRef = (actor: Actor) =>
  actor.type === 'key'
    ? { type: 'api_key', key_id: actor.principal.keyId, user_id: actor.principal.userId }
    : { type: 'operator' };
