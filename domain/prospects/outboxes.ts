import { declareOutbox } from '../kernel/outbox';
import { sourcingUpkeep } from './repository/upkeep';

/** What a started sourcing run's NOTIFY names. */
export const SOURCING_OUTBOX = 'sourcing run';

/** The area's outbox: sourcing runs, each waiting for its workflow. */
export const outboxes = {
  sourcingRuns: declareOutbox({
    name: SOURCING_OUTBOX,
    unstarted: (data, limit, startedMeanwhile) => sourcingUpkeep(data).unstarted(limit, startedMeanwhile),
    key: (r) => r.id,
  }),
};
