import { inSlots, slotsParam, type RelaySlots } from '../../kernel/outbox';
import type { Data } from '../../kernel/data';
import type { SourcingRun } from '../entities';

/** The background work on sourcing runs, across workspaces: the relay. */
export const sourcingUpkeep = (data: Data) => ({
  unstarted: (limit: number, startedMeanwhile: string[], slots: RelaySlots) =>
    // SQL: the scan follows the partial index of unstarted runs, leaving out a list.
    data.sql<(SourcingRun & { list_name: string })[]>(
      `SELECT r.*, l.name AS list_name FROM sourcing_runs r JOIN prospect_lists l ON l.id = r.list_id
        WHERE r.status = 'RUNNING' AND r.workflow_started_at IS NULL AND NOT (r.id = ANY($2::uuid[]))
          AND ${inSlots('r.workspace_id', '$3')}
        ORDER BY r.created_at LIMIT $1`,
      [limit, startedMeanwhile, slotsParam(slots)],
    ),
});
