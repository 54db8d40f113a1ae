import { inSlots, slotsParam, type RelaySlots } from '../../kernel/outbox';
import type { Data } from '../../kernel/data';
import type { Agent } from '../entities';

/** The background work on agents, across workspaces: the relay keeps their schedules in step. */
export const agentUpkeep = (data: Data) => ({
  /** Agents whose schedule is behind their status (or with a run to start), oldest change first. */
  unsynced: (limit: number, startedMeanwhile: string[], slots: RelaySlots) =>
    // SQL: the scan follows the partial index of unsynced agents, leaving out a list.
    data.sql<(Agent & { timezone: string })[]>(
      `SELECT a.*, w.timezone FROM agents a JOIN workspaces w ON w.id = a.workspace_id
        WHERE a.schedule_synced_at IS NULL
          AND NOT ((a.id::text || '@' || floor(extract(epoch FROM a.updated_at) * 1000)::bigint::text) = ANY($2::text[]))
          AND ${inSlots('a.workspace_id', '$3')}
        ORDER BY a.updated_at LIMIT $1`,
      [limit, startedMeanwhile, slotsParam(slots)],
    ),

  /**
   * In step, unless it changed again meanwhile (then the next pass syncs the newer state). A Date holds
   * milliseconds and PostgreSQL microseconds, so "unchanged" is "within the same millisecond".
   */
  synced: async (a: Agent): Promise<void> => {
    await data.sql(
      `UPDATE agents SET schedule_synced_at = clock_timestamp(), run_requested_at = NULL
        WHERE id = $1 AND abs(extract(epoch FROM updated_at - $2::timestamptz)) < 0.001`,
      [a.id, a.updated_at],
    );
  },
});

/** The relay's key for an agent's state: a change makes a new one, so it is not skipped as just synced. */
export const agentSyncKey = (a: Agent) => `${a.id}@${a.updated_at.getTime()}`;
