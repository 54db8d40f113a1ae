import { declareOutbox } from '../kernel/outbox';
import { DELIVERY_OUTBOX } from './fan-out';
import { deliveryUpkeep, runKey } from './repository/upkeep';

/**
 * The area's outbox: the deliveries each event fans out to, each waiting for its workflow. Fair per
 * endpoint within a workspace (a slow receiver's deliveries wait in their workflows and must not hold
 * back its other endpoints); a start continues the trace of the change that emitted the event. A
 * delivery is remembered by its run (`runKey`): a resend is a new generation, started again.
 */
export const outboxes = {
  deliveries: declareOutbox({
    name: DELIVERY_OUTBOX,
    unstarted: (data, limit, startedMeanwhile, slots) =>
      deliveryUpkeep(data).unstarted(limit, startedMeanwhile, slots),
    key: runKey,
    fair: {
      group: (d) => d.endpoint_id,
      workspace: (d) => d.workspace_id,
      stillStarting: (data, keys) => deliveryUpkeep(data).stillStarting(keys),
    },
    traced: (d) => d.traceparent,
  }),
};
