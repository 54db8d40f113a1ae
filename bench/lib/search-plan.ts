import type { DataSource } from 'typeorm';
import { Data } from '../../domain/kernel/data';
import type { OperationContext } from '../../domain/kernel/operation';
import { searchLeads } from '../../domain/leads/operations/search';
import { benchOperator } from './bench-database';

export type SearchPlan = {
  query: string;
  index_used: boolean;
  execution_ms: number | null;
  plan: string;
};

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the very statement GET /leads?query= runs: searchLeads itself builds
 * it and hands it to a stand-in Data, whose SQL explains a search of leads instead of running it
 * (other reads, such as the workspace's time zone, run). The plan follows the code when the search
 * changes; a copy of its SQL here would not.
 */
export async function explainSearch(db: DataSource, workspaceId: string, query: string): Promise<SearchPlan> {
  let plan: string | undefined;
  class Explaining extends Data {
    override async sql<R>(text: string, params: unknown[] = []): Promise<R> {
      if (!/\bFROM leads\b/.test(text)) return super.sql<R>(text, params);
      const rows = await db.query<{ 'QUERY PLAN': string }[]>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params);
      plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      return [] as R;
    }
  }
  const ctx = {
    data: new Explaining(db.manager, workspaceId),
    actor: benchOperator,
    workspaceId,
  } as OperationContext;
  await searchLeads.run(ctx, { query, limit: 25 });
  if (plan === undefined) throw new Error('searchLeads ran no query against leads');
  const time = /Execution Time: ([\d.]+) ms/.exec(plan)?.[1];
  return {
    query,
    index_used: /\bleads_search\b/.test(plan),
    execution_ms: time === undefined ? null : Number(time),
    plan,
  };
}
