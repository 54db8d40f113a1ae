import { declareOutbox } from '../kernel/outbox';
import { sourcingUpkeep } from './repository/upkeep';

/** What a started sourcing run's NOTIFY names. */
export const SOURCING_OUTBOX = 'sourcing run';

/** The area's outbox: sourcing runs, each waiting for its workflow. */
export const outboxes = {
  sourcingRuns: declareOutbox({
    name: SOURCING_OUTBOX,
    unstarted: (data, limit, startedMeanwhile, slots) =>
      sourcingUpkeep(data).unstarted(limit, startedMeanwhile, slots),
    key: (r) => r.id,
  }),
};
