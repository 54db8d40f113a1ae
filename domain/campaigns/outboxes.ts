import { declareOutbox } from '../kernel/outbox';
import { campaignUpkeep } from './repository/upkeep';

/** What a launch's NOTIFY names. */
export const CAMPAIGN_OUTBOX = 'campaign';

/** The area's outbox: launched campaigns, each waiting for its one workflow. */
export const outboxes = {
  campaigns: declareOutbox({
    name: CAMPAIGN_OUTBOX,
    unstarted: (data, limit, startedMeanwhile, slots) =>
      campaignUpkeep(data).unstarted(limit, startedMeanwhile, slots),
    key: (c) => c.id,
  }),
};
