import { cpus } from 'node:os';
import type { ApiResults } from './api-phases';
import type { SearchPlan } from './search-plan';
import type { Measured } from './stats';
import { SEARCH_KINDS } from './traffic';

const SEARCH_P99_TARGET_MS = 30;
const ANALYTICS_P99_TARGET_MS = 100;

const GET_LEAD_TARGET = 0.5;
const POST_LEAD_TARGET = 0.3;
const MCP_GET_P50_TARGET = 1.2;

/** A row and the floor its ratio is taken against (the one that does the same work), if any. */
type Row = { label: string; m: Measured; floor?: { name: string; m: Measured } };

const ratioOf = (m: Measured, base: Measured) => Math.round((m.rps / base.rps) * 1000) / 1000;

/**
 * What the POST target leaves a POST to spend: the floor's CPU per request over the target ratio (on a
 * machine the load saturates, req/s is cores over CPU per request), beside what a POST spent, and
 * PostgreSQL's part of it. Undefined when either phase was run without the CPU readings.
 */
function postCpuBudget(floor: Measured, post: Measured) {
  if (floor.cpu_ms_per_request === undefined || post.cpu_ms_per_request === undefined) return undefined;
  const budget = floor.cpu_ms_per_request / POST_LEAD_TARGET;
  const postgres = post.postgres_cpu_ms_per_request ?? 0;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    floor_ms: floor.cpu_ms_per_request,
    budget_ms: round(budget),
    post_ms: post.cpu_ms_per_request,
    postgres_ms: postgres,
    postgres_share_of_budget: Math.round((postgres / budget) * 100) / 100,
  };
}

const msOrDash = (ms: number | undefined) => (ms === undefined ? '-' : ms.toFixed(3));

/**
 * A fixed-width table; the ratio is req/s against the row's floor at the same concurrency. The CPU
 * columns are ms per request: the whole machine's, and PostgreSQL's processes' within it.
 */
export function table(list: Row[]): string {
  const header = ['', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'vs floor', 'floor', 'CPU', 'PG CPU'];
  const body = list.map((r) => [
    r.label,
    r.m.rps.toFixed(1),
    r.m.p50_ms.toFixed(2),
    r.m.p99_ms.toFixed(2),
    String(r.m.non_2xx),
    String(r.m.errors),
    r.floor ? ratioOf(r.m, r.floor.m).toFixed(3) : '-',
    r.floor?.name ?? '-',
    msOrDash(r.m.cpu_ms_per_request),
    msOrDash(r.m.postgres_cpu_ms_per_request),
  ]);
  return formatTable(header, body);
}

/** Fixed-width columns: the first left-aligned (labels), the rest right-aligned (figures). */
export function formatTable(header: string[], body: string[][]): string {
  const widths = header.map((_, i) => Math.max(...[header, ...body].map((cells) => cells[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

export type ApiReport = {
  settings: { leads: number; duration: number; connections: number; warmup: number };
  seed: { seeded: number; inserted: number; seconds: number };
  results: ApiResults;
  plan: SearchPlan;
  plansByKind: SearchPlan[];
  apiRequestsCutOff: number;
};

/** Prints the plan, the table and, as the very last stdout line, every figure as one JSON object. */
export function printApiReport({ settings, seed, results, plan, plansByKind, apiRequestsCutOff }: ApiReport) {
  const { bare, floorSelect, floorSelectInsert, getLead, search, postLead, searchOneConn, bareOneConn } =
    results;
  const { analytics30, analyticsYear, getLeadOneConn, mcpGetLeadOneConn, searchOneConnByKind } = results;
  const apiPhases = [
    getLead,
    search,
    postLead,
    searchOneConn,
    ...searchOneConnByKind,
    getLeadOneConn,
    mcpGetLeadOneConn,
    analytics30,
    analyticsYear,
  ];
  const all = [bare, floorSelect, floorSelectInsert, bareOneConn, ...apiPhases];
  const getRatio = ratioOf(getLead, floorSelectInsert);
  const postRatio = ratioOf(postLead, floorSelectInsert);
  const mcpP50Ratio = Math.round((mcpGetLeadOneConn.p50_ms / getLeadOneConn.p50_ms) * 100) / 100;
  const targets = {
    get_lead_vs_floor_met: getRatio >= GET_LEAD_TARGET,
    post_lead_vs_floor_met: postRatio >= POST_LEAD_TARGET,
    mcp_get_lead_p50_met: mcpP50Ratio <= MCP_GET_P50_TARGET,
  };
  const analyticsMet = analytics30.p99_ms < ANALYTICS_P99_TARGET_MS;
  const yearMet = analyticsYear.p99_ms < ANALYTICS_P99_TARGET_MS;
  /** A one-connection row's p99 against bare Koa's at one connection (the floor). */
  const p99Ratio = (m: Measured) => Math.round((m.p99_ms / bareOneConn.p99_ms) * 100) / 100;
  // The target holds for every kind of search the bench tries, not just for the mix.
  const met = [searchOneConn, ...searchOneConnByKind].every((m) => m.p99_ms < SEARCH_P99_TARGET_MS);
  const slowestKind = searchOneConnByKind.reduce((a, b) => (b.p99_ms > a.p99_ms ? b : a));
  const used = (p: SearchPlan) => `leads_search ${p.index_used ? 'used' : 'NOT used'}`;

  console.log(`EXPLAIN (ANALYZE, BUFFERS) of GET /leads?query=${plan.query}:\n${plan.plan}\n`);
  plansByKind.forEach((p, i) =>
    console.log(`  ${SEARCH_KINDS[i]} ${JSON.stringify(p.query)}: ${p.execution_ms} ms, ${used(p)}`),
  );
  console.log(
    `\n${settings.leads} leads, ${settings.duration} s per row after ${settings.warmup} s warm-up, ` +
      `${settings.connections} connections, ${cpus().length} CPUs\n`,
  );
  console.log(
    table([
      { label: 'bare koa', m: bare },
      { label: 'floor: SELECT', m: floorSelect, floor: { name: 'bare koa', m: bare } },
      { label: 'floor: SELECT + INSERT', m: floorSelectInsert, floor: { name: 'bare koa', m: bare } },
      { label: 'GET /leads/{id}', m: getLead, floor: { name: 'SELECT + INSERT', m: floorSelectInsert } },
      { label: 'GET /leads?query=', m: search, floor: { name: 'SELECT + INSERT', m: floorSelectInsert } },
      { label: 'POST /leads', m: postLead, floor: { name: 'SELECT + INSERT', m: floorSelectInsert } },
      { label: 'bare koa@1conn', m: bareOneConn },
      { label: 'search@1conn', m: searchOneConn },
      ...searchOneConnByKind.map((m, i) => ({ label: `  ${SEARCH_KINDS[i]}`, m })),
      { label: 'GET /leads/{id}@1conn', m: getLeadOneConn },
      { label: 'mcp lead.get@1conn', m: mcpGetLeadOneConn },
      { label: 'analytics 30d@1conn', m: analytics30 },
      { label: 'analytics 365d@1conn', m: analyticsYear },
    ]),
  );
  const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
  console.log(
    `\nGET /leads/{id}: ${getRatio}x the SELECT + INSERT floor (target >= ${GET_LEAD_TARGET}: ` +
      `${verdict(targets.get_lead_vs_floor_met)}); POST /leads: ${postRatio}x (target >= ${POST_LEAD_TARGET}: ` +
      `${verdict(targets.post_lead_vs_floor_met)}); mcp lead.get p50 ${mcpGetLeadOneConn.p50_ms} ms = ` +
      `${mcpP50Ratio}x the REST read's ${getLeadOneConn.p50_ms} ms (target <= ${MCP_GET_P50_TARGET}: ` +
      `${verdict(targets.mcp_get_lead_p50_met)})`,
  );
  const budget = postCpuBudget(floorSelectInsert, postLead);
  if (budget)
    console.log(
      `\nPOST /leads: ${budget.post_ms} ms of CPU per request (all cores), ${budget.postgres_ms} ms of it in ` +
        `PostgreSQL; the SELECT + INSERT floor ${budget.floor_ms} ms, so ${POST_LEAD_TARGET}x its rate allows ` +
        `${budget.budget_ms} ms per POST in all (PostgreSQL alone spends ${budget.postgres_share_of_budget}x that)`,
    );
  console.log(
    `\nanalytics.summary at 1 connection, ${settings.leads} leads: 30 days p50 ${analytics30.p50_ms} ms, ` +
      `p99 ${analytics30.p99_ms} ms (target < ${ANALYTICS_P99_TARGET_MS} ms: ${analyticsMet ? 'met' : 'MISSED'}; ` +
      `${p99Ratio(analytics30)}x bare Koa's p99 at 1 connection); 365 days p50 ${analyticsYear.p50_ms} ms, ` +
      `p99 ${analyticsYear.p99_ms} ms (${yearMet ? 'under' : 'OVER'} ${ANALYTICS_P99_TARGET_MS} ms)`,
  );
  console.log(
    `\nsearch at 1 connection: p99 ${searchOneConn.p99_ms} ms, slowest kind ` +
      `${SEARCH_KINDS[searchOneConnByKind.indexOf(slowestKind)]} p99 ${slowestKind.p99_ms} ms ` +
      `(target < ${SEARCH_P99_TARGET_MS} ms for every kind: ${met ? 'met' : 'MISSED'}); ` +
      `${used(plan)} for query=${JSON.stringify(plan.query)}`,
  );
  const summary = (p: SearchPlan) => ({
    query: p.query,
    index_used: p.index_used,
    execution_ms: p.execution_ms,
  });
  console.log(
    JSON.stringify({
      bench: 'api',
      leads_seeded: seed.seeded,
      seed_seconds: seed.inserted > 0 ? seed.seconds : null,
      duration_s: settings.duration,
      warmup_s: settings.warmup,
      connections: settings.connections,
      cpus: cpus().length,
      node: process.version,
      api_keys_created: results.keysCreated,
      max_requests_per_key: Math.max(...apiPhases.map((p) => p.max_requests_per_key)),
      api_requests_cut_off_at_phase_ends: apiRequestsCutOff,
      bare_koa: bare,
      floor_select: floorSelect,
      floor_select_insert: floorSelectInsert,
      floor_select_rps: floorSelect.rps,
      floor_select_insert_rps: floorSelectInsert.rps,
      get_lead: getLead,
      search,
      post_lead: postLead,
      search_1conn: searchOneConn,
      search_1conn_by_kind: searchOneConnByKind.map((m, i) => ({ kind: SEARCH_KINDS[i], ...m })),
      ratio_get_lead_vs_floor: getRatio,
      ratio_search_vs_floor: ratioOf(search, floorSelectInsert),
      ratio_post_lead_vs_floor: postRatio,
      post_lead_cpu_budget: budget ?? null,
      ratio_get_lead_vs_bare: ratioOf(getLead, bare),
      ratio_search_vs_bare: ratioOf(search, bare),
      ratio_post_lead_vs_bare: ratioOf(postLead, bare),
      get_lead_vs_floor_target: GET_LEAD_TARGET,
      post_lead_vs_floor_target: POST_LEAD_TARGET,
      get_lead_1conn: getLeadOneConn,
      mcp_get_lead_1conn: mcpGetLeadOneConn,
      ratio_mcp_get_lead_p50_vs_rest: mcpP50Ratio,
      mcp_get_lead_p50_target_ratio: MCP_GET_P50_TARGET,
      ...targets,
      search_p50_ms: searchOneConn.p50_ms,
      search_p99_ms: searchOneConn.p99_ms,
      search_p99_by_kind_ms: Object.fromEntries(
        searchOneConnByKind.map((m, i): [string, number] => [SEARCH_KINDS[i]!, m.p99_ms]),
      ),
      search_p99_target_ms: SEARCH_P99_TARGET_MS,
      search_p99_met: met,
      bare_koa_1conn: bareOneConn,
      analytics_30d_1conn: analytics30,
      analytics_365d_1conn: analyticsYear,
      analytics_30d_p50_ms: analytics30.p50_ms,
      analytics_30d_p99_ms: analytics30.p99_ms,
      analytics_365d_p50_ms: analyticsYear.p50_ms,
      analytics_365d_p99_ms: analyticsYear.p99_ms,
      analytics_p99_target_ms: ANALYTICS_P99_TARGET_MS,
      analytics_30d_p99_met: analyticsMet,
      analytics_365d_p99_met: yearMet,
      ratio_analytics_30d_p99_vs_bare_1conn: p99Ratio(analytics30),
      ratio_analytics_365d_p99_vs_bare_1conn: p99Ratio(analyticsYear),
      search_plan: summary(plan),
      search_plans_by_kind: plansByKind.map((p, i) => ({ kind: SEARCH_KINDS[i], ...summary(p) })),
      non_2xx_total: all.reduce((sum, m) => sum + m.non_2xx, 0),
      errors_total: all.reduce((sum, m) => sum + m.errors, 0),
    }),
  );
  return all.reduce((sum, m) => sum + m.non_2xx + m.errors, 0);
}
