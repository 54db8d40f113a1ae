import type { DataSource } from 'typeorm';
import type { Logger } from '../../infra/logger';
import type { Service } from './children';
import { inTurn, inTurnWithTotal, oneAtATime } from './closed-loop';
import { bearer, createKeys, KeyPool } from './keys';
import { hammer, type NextRequest } from './load';
import type { Measured } from './stats';
import {
  intakeBodies,
  lastPostedNumber,
  sampleLeadIds,
  searchFragments,
  SEARCH_KINDS,
  sequence,
} from './traffic';

// Under the API's 300 a minute per key for the whole run, whatever minute boundaries it crosses.
const REQUESTS_PER_KEY = 250;

export type Phase = Measured & { api_keys: number; max_requests_per_key: number };
export type ApiResults = {
  bare: Measured;
  /** Bare Koa + the pool + one primary-key SELECT of a lead: the floor of a read. */
  floorSelect: Measured;
  /** The same plus one durable INSERT: the floor of an audited read, and of a write. */
  floorSelectInsert: Measured;
  /** One request at a time: REST GET /leads/{id}, and `lead.get` through the assistant endpoint. */
  getLeadOneConn: Phase;
  mcpGetLeadOneConn: Phase;
  getLead: Phase;
  search: Phase;
  postLead: Phase;
  searchOneConn: Phase;
  /** The same requests, each kind of search on its own (SEARCH_KINDS order). */
  searchOneConnByKind: Phase[];
  /** One request at a time against bare Koa: the floor for the one-connection rows. */
  bareOneConn: Measured;
  /** `analytics.summary` through the assistant endpoint, one at a time: the default 30 days, and a year. */
  analytics30: Phase;
  analyticsYear: Phase;
  fragments: string[];
  keysCreated: number;
};
type KeyedRequest = (key: string) => ReturnType<NextRequest>;
type Settings = { duration: number; connections: number; warmup: number };

/**
 * Bare Koa first (its rate bounds everything after it), then each API route: a warm-up that is not
 * recorded, then the measured run; last, search one request at a time.
 */
export async function runApiPhases(
  db: DataSource,
  workspaceId: string,
  servers: { api: Service; bare: Service },
  { duration, connections, warmup }: Settings,
  log: Logger,
): Promise<ApiResults> {
  const { api, bare } = servers;
  log.info(`bare Koa: ${warmup} s warm-up, then ${duration} s at ${connections} connections`);
  const bareNext: NextRequest = () => ({ method: 'GET', path: '/lead' });
  await hammer(bare.url, connections, warmup, bareNext);
  const bareResult = await hammer(bare.url, connections, duration, bareNext);
  const ids = await sampleLeadIds(db, workspaceId);
  const r = sequence(3);
  const floor = async (label: string, kind: string) => {
    log.info(`${label}: ${warmup} s warm-up, then ${duration} s at ${connections} connections`);
    const next: NextRequest = () => ({ method: 'GET', path: `/floor/${kind}/${ids[r(ids.length)]}` });
    await hammer(bare.url, connections, warmup, next);
    return hammer(bare.url, connections, duration, next);
  };
  const floorSelect = await floor('floor: Koa + pool + PK SELECT', 'select');
  const floorSelectInsert = await floor('floor: Koa + pool + PK SELECT + durable INSERT', 'select-insert');

  // Fresh keys per run, enough for each to stay under its limit at the fastest rate a run could
  // reach: bare Koa's for a warm-up (the API cannot outrun it on the same machine), then four times
  // the warm-up's own rate, so a few hundred keys do instead of thousands.
  const ceiling = bareResult.rps * 1.25;
  let keysCreated = 0;
  const keyPool = async (rps: number, seconds: number) => {
    const count = Math.max(4, Math.ceil((Math.min(ceiling, rps) * seconds) / REQUESTS_PER_KEY));
    keysCreated += count;
    return new KeyPool(await createKeys(db, workspaceId, count));
  };
  const withKey =
    (pool: KeyPool, make: KeyedRequest): NextRequest =>
    () =>
      make(pool.next());
  const keyed = (pool: KeyPool, m: Measured): Phase => ({
    ...m,
    api_keys: pool.size,
    max_requests_per_key: pool.maxUsesPerKey,
  });
  const apiPhase = async (label: string, make: KeyedRequest): Promise<Phase> => {
    log.info(`${label}: ${warmup} s warm-up, then ${duration} s at ${connections} connections`);
    const warm = await hammer(api.url, connections, warmup, withKey(await keyPool(ceiling, warmup), make));
    const keys = await keyPool(warm.rps * 4, duration);
    return keyed(keys, await hammer(api.url, connections, duration, withKey(keys, make)));
  };

  const fragments = await searchFragments(db, workspaceId);
  const nextBody = intakeBodies(await lastPostedNumber(db, workspaceId));
  /** Searches for each of `queries` in turn. */
  const searchOf = (queries: string[]): KeyedRequest => {
    let f = 0;
    return (key) => ({
      method: 'GET',
      path: `/api/v1/leads?query=${encodeURIComponent(queries[f++ % queries.length]!)}`,
      headers: bearer(key),
    });
  };
  const searchRequest = searchOf(fragments);

  const getLeadRequest: KeyedRequest = (key) => ({
    method: 'GET',
    path: `/api/v1/leads/${ids[r(ids.length)]}`,
    headers: bearer(key),
  });
  const getLead = await apiPhase('GET /leads/{id}', getLeadRequest);
  const search = await apiPhase('GET /leads?query=', searchRequest);
  const postLead = await apiPhase('POST /leads', (key) => {
    const { n, body } = nextBody();
    return {
      method: 'POST',
      path: '/api/v1/leads',
      headers: { ...bearer(key), 'content-type': 'application/json', 'idempotency-key': `bench-post-${n}` },
      body: JSON.stringify(body),
    };
  });

  // The kinds take turns (fragment i is of kind i % SEARCH_KINDS.length), each timed on its own too:
  // the target holds for every kind.
  log.info(`search@1conn: ${duration} s, one request at a time, the kinds in turn`);
  const oneConnKeys = await keyPool(search.rps * 4, duration);
  const byKind = await inTurnWithTotal(
    api.url,
    duration,
    SEARCH_KINDS.map((_, k) =>
      withKey(oneConnKeys, searchOf(fragments.filter((_, i) => i % SEARCH_KINDS.length === k))),
    ),
  );
  const searchOneConn = keyed(oneConnKeys, byKind.total);
  const searchOneConnByKind = byKind.each.map((m) => keyed(oneConnKeys, m));
  log.info(`bare Koa@1conn: ${duration} s, one request at a time`);
  const bareOneConn = await oneAtATime(bare.url, duration, bareNext);
  // REST and MCP reads take turns on one connection, so the ratio compares the two doors at the same
  // moments (a 1-connection latency on this machine drifts by a millisecond from one run to the next).
  const mcpGetLeadRequest: KeyedRequest = (key) =>
    toolCall(key, 'lead.get', { leadId: ids[r(ids.length)]! }, { 'mcp-param-lead-id': 'leadId' });
  log.info(`GET /leads/{id} and mcp lead.get@1conn, in turn: ${duration} s, one request at a time`);
  const doorKeys = await keyPool(1000, warmup + duration);
  await checkCall(api.url, getLeadRequest(doorKeys.next()), 'GET /leads/{id}@1conn');
  await checkCall(api.url, mcpGetLeadRequest(doorKeys.next()), 'mcp lead.get@1conn');
  const doors = [withKey(doorKeys, getLeadRequest), withKey(doorKeys, mcpGetLeadRequest)];
  await inTurn(api.url, warmup, doors);
  const [getLeadTurns, mcpGetLeadTurns] = await inTurn(api.url, duration, doors);
  const getLeadOneConn = keyed(doorKeys, getLeadTurns!);
  const mcpGetLeadOneConn = keyed(doorKeys, mcpGetLeadTurns!);

  const today = new Date().toISOString().slice(0, 10);
  const yearAgo = new Date(Date.now() - 364 * 86_400_000).toISOString().slice(0, 10);
  const analyticsPhase = async (label: string, args: Record<string, string>): Promise<Phase> => {
    const make: KeyedRequest = (key) => toolCall(key, 'analytics.summary', args);
    const [probeKey] = await createKeys(db, workspaceId, 1);
    keysCreated++;
    const r = (await checkCall(api.url, make(probeKey!), label)) as {
      period: unknown;
      leads: { total: number };
    };
    log.info(`${label}: ${JSON.stringify(r.period)}, ${r.leads.total} leads in the period`);
    log.info(`${label}: ${duration} s, one request at a time`);
    const pool = await keyPool(200, duration);
    return keyed(pool, await oneAtATime(api.url, duration, withKey(pool, make)));
  };
  const analytics30 = await analyticsPhase('analytics.summary (30 days)@1conn', {});
  const analyticsYear = await analyticsPhase('analytics.summary (365 days)@1conn', {
    from: yearAgo,
    to: today,
  });
  return {
    bare: bareResult,
    floorSelect,
    floorSelectInsert,
    getLeadOneConn,
    mcpGetLeadOneConn,
    getLead,
    search,
    postLead,
    searchOneConn,
    searchOneConnByKind,
    bareOneConn,
    analytics30,
    analyticsYear,
    fragments,
    keysCreated,
  };
}

/** A `tools/call` as a 2026-07-28 client sends it (stateless, headers and `_meta`). */
export function toolCall(
  key: string,
  name: string,
  args: Record<string, string>,
  /** `Mcp-Param-*` headers the tool declares, each naming the argument it mirrors. */
  paramHeaders: Record<string, string> = {},
): ReturnType<NextRequest> {
  return {
    method: 'POST',
    path: '/api/mcp',
    headers: {
      ...bearer(key),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...Object.fromEntries(Object.entries(paramHeaders).map(([h, arg]) => [h, args[arg]!])),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  };
}

/**
 * One call first, answering its structured content for a tool call: a tool error answers 200 too,
 * and a run of refusals would measure nothing.
 */
async function checkCall(url: string, req: ReturnType<NextRequest>, label: string): Promise<unknown> {
  const res = await fetch(new URL(req.path!, url), {
    method: req.method ?? 'GET',
    headers: req.headers as Record<string, string>,
    body: req.body,
  });
  const text = await res.text();
  const body = JSON.parse(text) as {
    result?: { isError?: boolean; structuredContent?: unknown };
    error?: unknown;
  };
  if (!res.ok || body.error || body.result?.isError)
    throw new Error(`${label}: the call failed (${res.status}): ${text.slice(0, 500)}`);
  return body.result?.structuredContent;
}
