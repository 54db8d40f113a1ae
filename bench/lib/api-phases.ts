import type { DataSource } from 'typeorm';
import type { Logger } from '../../infra/logger';
import type { Service } from './children';
import { oneAtATime } from './closed-loop';
import { createKeys, KeyPool } from './keys';
import { hammer, type NextRequest } from './load';
import type { Measured } from './stats';
import { intakeBodies, lastPostedNumber, sampleLeadIds, searchFragments, sequence } from './traffic';

// Under the API's 300 a minute per key for the whole run, whatever minute boundaries it crosses.
const REQUESTS_PER_KEY = 250;

export type Phase = Measured & { api_keys: number; max_requests_per_key: number };
export type ApiResults = {
  bare: Measured;
  getLead: Phase;
  search: Phase;
  postLead: Phase;
  searchOneConn: Phase;
  fragments: string[];
  keysCreated: number;
};
type KeyedRequest = (key: string) => ReturnType<NextRequest>;
type Settings = { duration: number; connections: number; warmup: number };

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

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

  const ids = await sampleLeadIds(db, workspaceId);
  const fragments = await searchFragments(db, workspaceId);
  const nextBody = intakeBodies(await lastPostedNumber(db, workspaceId));
  const r = sequence(3);
  let f = 0;
  const searchRequest: KeyedRequest = (key) => ({
    method: 'GET',
    path: `/api/v1/leads?query=${encodeURIComponent(fragments[f++ % fragments.length]!)}`,
    headers: bearer(key),
  });

  const getLead = await apiPhase('GET /leads/{id}', (key) => ({
    method: 'GET',
    path: `/api/v1/leads/${ids[r(ids.length)]}`,
    headers: bearer(key),
  }));
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

  log.info(`search@1conn: ${duration} s, one request at a time`);
  const oneConnKeys = await keyPool(search.rps * 4, duration);
  const searchOneConn = keyed(
    oneConnKeys,
    await oneAtATime(api.url, duration, withKey(oneConnKeys, searchRequest)),
  );
  return { bare: bareResult, getLead, search, postLead, searchOneConn, fragments, keysCreated };
}
