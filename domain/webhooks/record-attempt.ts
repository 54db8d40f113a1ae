import type { DataSource } from 'typeorm';
import { Data } from '../kernel/data';
import type { DeliveryRun } from '../kernel/operation';
import { FAILURES_BEFORE_DISABLE, GONE_STATUS } from './delivery-rules';
import { attemptsIn, type AttemptRecord, type FailureCount } from './repository/attempts';
import { deliveriesIn } from './repository/deliveries';
import { endpointsIn } from './repository/endpoints';
import { notificationsIn } from './repository/notifications';

export type { AttemptRecord };

export type RecordResult = {
  /** False when the delivery was cancelled (or resent) while the attempt ran: nothing was recorded. */
  recorded: boolean;
  /** Deliveries whose workflows to cancel because this attempt disabled the endpoint. */
  cancelled: DeliveryRun[];
  /** This attempt was the endpoint's last straw: it is disabled now. */
  disabled: boolean;
};

/** Rolls back what the attempt changed before it found its delivery no longer waiting. */
class NotRecorded extends Error {}

const STATUS = { succeeded: 'SUCCEEDED', retry: 'FAILED', exhausted: 'EXHAUSTED' } as const;

/**
 * Records one attempt and the delivery's new state in one transaction, ending the attempt's claim (only
 * the run holding it records: one whose claim was taken over records nothing), and keeps the endpoint's
 * count of deliveries failed in a row: EXHAUSTED adds one, SUCCEEDED resets it; the 20th, or a 410 Gone,
 * disables the endpoint with a reason, cancels its waiting deliveries and tells the owner.
 *
 * Locks go endpoint first, then deliveries, as in every change to an endpoint (disabling one cancels
 * its waiting deliveries while it holds the endpoint). An attempt that held its delivery while it
 * waited for the endpoint deadlocked with one whose 20th failure was disabling that endpoint. So the
 * count changes before the delivery does, in the same statements as before, and a delivery found no
 * longer waiting rolls the count back.
 */
export async function recordAttempt(db: DataSource, r: AttemptRecord): Promise<RecordResult> {
  try {
    return await db.transaction(async (m) => {
      const data = new Data(m, undefined);
      const attempts = attemptsIn(data);
      let failures: FailureCount | undefined;
      if (r.outcome === 'exhausted') failures = await attempts.countFailure(r.endpointId);
      if (r.outcome === 'succeeded') await attempts.resetFailures(r.endpointId);
      if (!(await attempts.settle(r, STATUS[r.outcome]))) throw new NotRecorded();
      await attempts.log(r);
      const why = failures?.status === 'ACTIVE' ? disableReason(r, failures) : undefined;
      if (!failures || why === undefined) return { recorded: true, cancelled: [], disabled: false };
      const cancelled = await disable(data.in(failures.workspace_id), r, failures, why);
      return { recorded: true, cancelled, disabled: true };
    });
  } catch (err) {
    if (!(err instanceof NotRecorded)) throw err;
    // The delivery moved on (cancelled, resent) while the attempt ran: its claim ends all the same.
    if (r.sendingToken)
      await attemptsIn(new Data(db.manager, undefined)).release(r.deliveryId, r.sendingToken);
    return { recorded: false, cancelled: [], disabled: false };
  }
}

/**
 * Why a delivery that ended in failure disables its endpoint, if it does: the receiver answered
 * `410 Gone` (it says the endpoint is no more), or this was the 20th in a row.
 */
function disableReason(r: AttemptRecord, endpoint: FailureCount): string | undefined {
  if (r.responseStatus === GONE_STATUS) return 'the receiver answered 410 Gone';
  if (endpoint.consecutive_failures < FAILURES_BEFORE_DISABLE) return undefined;
  return `${FAILURES_BEFORE_DISABLE} deliveries in a row failed (the last answered ${
    r.responseStatus ?? r.errorClass ?? 'nothing'
  })`;
}

/** Disables the endpoint, cancels its waiting deliveries, and tells its owner; answers those deliveries. */
async function disable(
  data: Data,
  r: AttemptRecord,
  endpoint: FailureCount,
  reason: string,
): Promise<DeliveryRun[]> {
  await endpointsIn(data).change(r.endpointId, { status: 'DISABLED', disabled_reason: reason });
  const cancelled = await deliveriesIn(data).cancelWaiting(r.endpointId);
  await notificationsIn(data).add({
    user_id: endpoint.owner_user_id,
    kind: 'webhook_endpoint.disabled',
    message: `Webhook endpoint ${endpoint.url} was disabled: ${reason}. Fix the receiver, then enable the endpoint again.`,
    data: { endpoint_id: r.endpointId, reason, cancelled_deliveries: cancelled.length },
  });
  return cancelled;
}
