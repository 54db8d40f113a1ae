import { inSlots, slotsParam, type RelaySlots } from '../../kernel/outbox';
import type { Data } from '../../kernel/data';
import type { Campaign } from '../entities';

/** The background work on campaigns, across workspaces: the relay. */
export const campaignUpkeep = (data: Data) => ({
  /** Launched campaigns whose workflow has not started, oldest first, but for those just started. */
  unstarted: (limit: number, startedMeanwhile: string[], slots: RelaySlots) =>
    // SQL: the scan follows the partial index of unstarted campaigns, leaving out a list.
    data.sql<Pick<Campaign, 'id' | 'workspace_id' | 'name' | 'channel' | 'audience_size'>[]>(
      `SELECT id, workspace_id, name, channel, audience_size FROM campaigns
        WHERE status = 'RUNNING' AND workflow_started_at IS NULL AND NOT (id = ANY($2::uuid[]))
          AND ${inSlots('workspace_id', '$3')}
        ORDER BY launched_at LIMIT $1`,
      [limit, startedMeanwhile, slotsParam(slots)],
    ),
});
