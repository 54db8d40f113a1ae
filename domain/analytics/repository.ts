import type { Data } from '../kernel/data';

export type SummaryRow = {
  leads: number;
  by_status: Record<string, number> | null;
  by_source: Record<string, number> | null;
  booked: number;
  won: number;
  responded: number;
  median_first_response_s: number | null;
  campaign: { sent: number; delivered: number; bounced: number; failed: number; skipped: number };
  agent_actions: Record<string, number> | null;
};

/**
 * A period's figures for one workspace, in one statement. The period is [from 00:00, to + 1 day 00:00)
 * in the workspace's zone, converted there. The cohort is the leads created in it: one index-only scan
 * of `leads_analytics`, grouped by status, by source and in all at once (hashed grouping sets); the
 * median reads only the leads we answered; campaign sends and agent actions are counted by when they
 * happened, each over its own index. JIT is off for it: compiling costs more than this query runs.
 * SQL: aggregates (a median among them) belong in the database; nothing is counted in Node.
 */
export const analyticsIn = (data: Data) => ({
  summary: (from: string, to: string, timezone: string): Promise<SummaryRow> =>
    data.manager.transaction(async (m) => {
      await m.query('SET LOCAL jit = off');
      const [row] = await m.query<SummaryRow[]>(
        `WITH p AS (SELECT ($2::date)::timestamp AT TIME ZONE $4 AS t0, ($3::date + 1)::timestamp AT TIME ZONE $4 AS t1),
         g AS (
           SELECT status, source, GROUPING(status, source) AS set, count(*)::int AS n,
                  count(*) FILTER (WHERE booked_at IS NOT NULL OR won_at IS NOT NULL)::int AS booked,
                  count(won_at)::int AS won, count(first_response_at)::int AS responded
             FROM leads, p
            WHERE workspace_id = $1 AND archived_at IS NULL AND created_at >= p.t0 AND created_at < p.t1
            GROUP BY GROUPING SETS ((status), (source), ()))
         SELECT coalesce((SELECT n FROM g WHERE set = 3), 0) AS leads,
                (SELECT jsonb_object_agg(status, n) FROM g WHERE set = 1) AS by_status,
                (SELECT jsonb_object_agg(coalesce(source, '(none)'), n) FROM g WHERE set = 2) AS by_source,
                coalesce((SELECT booked FROM g WHERE set = 3), 0) AS booked,
                coalesce((SELECT won FROM g WHERE set = 3), 0) AS won,
                coalesce((SELECT responded FROM g WHERE set = 3), 0) AS responded,
                (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM first_response_at - created_at))
                   FROM leads, p
                  WHERE workspace_id = $1 AND archived_at IS NULL AND created_at >= p.t0 AND created_at < p.t1
                    AND first_response_at IS NOT NULL) AS median_first_response_s,
                (SELECT jsonb_build_object(
                          'sent', count(*) FILTER (WHERE s.status IN ('sent', 'bounced')),
                          'delivered', count(*) FILTER (WHERE s.status = 'sent'),
                          'bounced', count(*) FILTER (WHERE s.status = 'bounced'),
                          'failed', count(*) FILTER (WHERE s.status = 'failed'),
                          'skipped', count(*) FILTER (WHERE s.status = 'suppressed'))
                   FROM messages s, p WHERE s.workspace_id = $1 AND s.campaign_id IS NOT NULL
                    AND s.at >= p.t0 AND s.at < p.t1) AS campaign,
                (SELECT jsonb_object_agg(kind, n) FROM (
                   SELECT kind, count(*)::int n FROM agent_actions a, p
                    WHERE a.workspace_id = $1 AND a.at >= p.t0 AND a.at < p.t1 GROUP BY kind) k) AS agent_actions`,
        [data.workspaceId, from, to, timezone],
      );
      return row!;
    }),
});
