import type { Changes } from '../kernel/data';
import { notFound } from '../kernel/errors';
import { WRITE, type DeliveryRun, type OperationContext } from '../kernel/operation';
import type { Requirement } from '../kernel/permissions';
import type { Endpoint } from './entities';
import { deliveriesIn } from './repository/deliveries';
import { endpointsIn, type EndpointRecord } from './repository/endpoints';
import { endpointView } from './views';

/** Endpoints are managed in the application's settings (here, the operator door); a key would need this. */
const MANAGE_ENDPOINTS: Requirement = { scope: 'business:write', minRole: 'admin' };

/**
 * What every change to an endpoint or its deliveries shares: an operator's change on a record, all
 * from the operator door (the application's settings).
 */
export const ENDPOINT_CHANGE = {
  ...WRITE,
  requirement: MANAGE_ENDPOINTS,
  reach: 'record',
  operatorOnly: true,
} as const;

/** Locks an endpoint of the caller's workspace (any, for the operator) for a change. */
export async function lockEndpoint(ctx: OperationContext, endpointId: string): Promise<EndpointRecord> {
  const row = await endpointsIn(ctx.data).lock(endpointId);
  if (!row) throw notFound('endpoint');
  return row;
}

/** Changes a locked endpoint, answering it as now stored. */
export async function changeEndpoint(ctx: OperationContext, endpointId: string, changes: Changes<Endpoint>) {
  await lockEndpoint(ctx, endpointId);
  return endpointsIn(ctx.data).change(endpointId, changes);
}

/** Cancels the waiting deliveries' workflows once the rows saying so have committed. */
export function cancelAfterCommit(ctx: OperationContext, cancelled: DeliveryRun[]) {
  if (cancelled.length > 0) ctx.afterCommit(() => ctx.services.webhooks.cancelWorkflows(cancelled));
}

/** Disabling (or deleting) cancels the endpoint's waiting deliveries, records and workflows alike. */
export async function switchOff(
  ctx: OperationContext,
  id: string,
  status: 'DISABLED' | 'DELETED',
  reason: string,
) {
  const row = await changeEndpoint(ctx, id, { status, disabled_reason: reason });
  const cancelled = await deliveriesIn(ctx.data).cancelWaiting(id);
  cancelAfterCommit(ctx, cancelled);
  ctx.audit(row.workspace_id, { endpoint_id: id, cancelled: cancelled.length });
  return { ...endpointView(row), cancelled_deliveries: cancelled.length };
}
