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
 * of `leads_analytics`, materialised once and grouped three ways; campaign sends and agent actions are
 * counted by when they happened, each over its own index.
 * SQL: aggregates (a median among them) belong in the database; nothing is counted in Node.
 */
export const analyticsIn = (data: Data) => ({
  summary: async (from: string, to: string, timezone: string): Promise<SummaryRow> => {
    const [row] = await data.sql<SummaryRow[]>(
      `WITH p AS (SELECT ($2::date)::timestamp AT TIME ZONE $4 AS t0, ($3::date + 1)::timestamp AT TIME ZONE $4 AS t1),
       l AS MATERIALIZED (
         SELECT status, source, created_at, booked_at, won_at, first_response_at FROM leads, p
          WHERE workspace_id = $1 AND archived_at IS NULL AND created_at >= p.t0 AND created_at < p.t1)
       SELECT (SELECT count(*)::int FROM l) AS leads,
              (SELECT jsonb_object_agg(status, n) FROM (SELECT status, count(*)::int n FROM l GROUP BY status) s) AS by_status,
              (SELECT jsonb_object_agg(coalesce(source, '(none)'), n)
                 FROM (SELECT source, count(*)::int n FROM l GROUP BY source) s) AS by_source,
              (SELECT count(*)::int FROM l WHERE booked_at IS NOT NULL OR won_at IS NOT NULL) AS booked,
              (SELECT count(*)::int FROM l WHERE won_at IS NOT NULL) AS won,
              (SELECT count(*)::int FROM l WHERE first_response_at IS NOT NULL) AS responded,
              (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM first_response_at - created_at))
                 FROM l WHERE first_response_at IS NOT NULL) AS median_first_response_s,
              (SELECT jsonb_build_object(
                        'sent', count(*) FILTER (WHERE m.status IN ('sent', 'bounced')),
                        'delivered', count(*) FILTER (WHERE m.status = 'sent'),
                        'bounced', count(*) FILTER (WHERE m.status = 'bounced'),
                        'failed', count(*) FILTER (WHERE m.status = 'failed'),
                        'skipped', count(*) FILTER (WHERE m.status = 'suppressed'))
                 FROM messages m, p WHERE m.workspace_id = $1 AND m.campaign_id IS NOT NULL
                  AND m.at >= p.t0 AND m.at < p.t1) AS campaign,
              (SELECT jsonb_object_agg(kind, n) FROM (
                 SELECT kind, count(*)::int n FROM agent_actions a, p
                  WHERE a.workspace_id = $1 AND a.at >= p.t0 AND a.at < p.t1 GROUP BY kind) k) AS agent_actions`,
      [data.workspaceId, from, to, timezone],
    );
    return row!;
  },
});
