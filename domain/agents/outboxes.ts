import { declareOutbox } from '../kernel/outbox';
import { agentSyncKey, agentUpkeep } from './repository/upkeep';

/** What a change to an agent's state (its status, a run asked for) NOTIFYs. */
export const AGENT_SCHEDULE_OUTBOX = 'agent schedule';

/**
 * The area's outbox: agents whose Temporal schedule is behind their state (or with a run to start),
 * each remembered by its state (`agentSyncKey`), so a change made meanwhile is brought in step too;
 * marked in step once the schedule matches.
 */
export const outboxes = {
  schedules: declareOutbox({
    name: AGENT_SCHEDULE_OUTBOX,
    unstarted: (data, limit, startedMeanwhile, slots) =>
      agentUpkeep(data).unsynced(limit, startedMeanwhile, slots),
    key: agentSyncKey,
    started: (data, a) => agentUpkeep(data).synced(a),
  }),
};
