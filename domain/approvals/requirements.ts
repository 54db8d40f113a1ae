import type { OperationContext } from '../kernel/operation';
import type { Requirement } from '../kernel/permissions';

/** Any key may follow what it parked; only its own requests are visible to it. */
export const READ: Requirement = { scope: 'business:read', minRole: 'viewer' };
/** Deciding is for an admin or owner of the request's workspace, checked when the workflow records it. */
export const DECIDE: Requirement = { scope: 'business:write', minRole: 'admin' };

/** A key sees the requests it parked; the operator sees the workspace's. */
export const ownKey = (ctx: OperationContext) =>
  ctx.actor.type === 'key' ? ctx.actor.principal.keyId : undefined;
