import type { Data } from '../../kernel/data';

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
 * of `leads_analytics`, counted per status and source (a plain grouping, which PostgreSQL can split
 * over parallel workers; grouping sets cannot be), then summed by status, by source and in all from
 * those few dozen rows. The median reads only the leads we answered (`leads_first_response`); campaign
 * sends and agent actions are counted by when they happened, each over its own index. JIT is off for
 * it: compiling costs more than this query runs.
 * SQL: aggregates (a median among them) belong in the database; nothing is counted in Node.
 */
export const analyticsIn = (data: Data) => ({
  summary: (from: string, to: string, timezone: string): Promise<SummaryRow> =>
    data.manager.transaction(async (m) => {
      await m.query('SET LOCAL jit = off');
      // The bounds are written out in each condition (not joined from a CTE), so every scan's index
      // condition is a constant.
      const t0 = '($2::date)::timestamp AT TIME ZONE $4';
      const t1 = '($3::date + 1)::timestamp AT TIME ZONE $4';
      const [row] = await m.query<SummaryRow[]>(
        `WITH c AS (
           SELECT status, source, count(*)::int AS n,
                  count(*) FILTER (WHERE booked_at IS NOT NULL OR won_at IS NOT NULL)::int AS booked,
                  count(won_at)::int AS won
             FROM leads
            WHERE workspace_id = $1 AND archived_at IS NULL AND created_at >= ${t0} AND created_at < ${t1}
            GROUP BY status, source),
         r AS (
           SELECT count(*)::int AS responded,
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM first_response_at - created_at)) AS median
             FROM leads
            WHERE workspace_id = $1 AND archived_at IS NULL AND first_response_at IS NOT NULL
              AND created_at >= ${t0} AND created_at < ${t1})
         SELECT coalesce((SELECT sum(n) FROM c), 0)::int AS leads,
                (SELECT jsonb_object_agg(status, n) FROM (SELECT status, sum(n)::int AS n FROM c GROUP BY status) s) AS by_status,
                (SELECT jsonb_object_agg(coalesce(source, '(none)'), n)
                   FROM (SELECT source, sum(n)::int AS n FROM c GROUP BY source) s) AS by_source,
                coalesce((SELECT sum(booked) FROM c), 0)::int AS booked,
                coalesce((SELECT sum(won) FROM c), 0)::int AS won,
                (SELECT responded FROM r) AS responded,
                (SELECT median FROM r) AS median_first_response_s,
                (SELECT jsonb_build_object(
                          'sent', count(*) FILTER (WHERE s.status IN ('sent', 'bounced')),
                          'delivered', count(*) FILTER (WHERE s.status = 'sent'),
                          'bounced', count(*) FILTER (WHERE s.status = 'bounced'),
                          'failed', count(*) FILTER (WHERE s.status = 'failed'),
                          'skipped', count(*) FILTER (WHERE s.status = 'suppressed'))
                   FROM messages s WHERE s.workspace_id = $1 AND s.campaign_id IS NOT NULL
                    AND s.at >= ${t0} AND s.at < ${t1}) AS campaign,
                (SELECT jsonb_object_agg(kind, n) FROM (
                   SELECT kind, count(*)::int n FROM agent_actions a
                    WHERE a.workspace_id = $1 AND a.at >= ${t0} AND a.at < ${t1} GROUP BY kind) k) AS agent_actions`,
        [data.workspaceId, from, to, timezone],
      );
      return row!;
    }),
});
