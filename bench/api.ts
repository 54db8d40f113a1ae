import { withCleanup } from '../tooling/cleanup';
import { freePort } from '../tooling/processes';
import { runApiPhases } from './lib/api-phases';
import { parseIntFlags } from './lib/args';
import { benchWorkspace, openBenchDatabase } from './lib/bench-database';
import { buildForProduction, startService } from './lib/children';
import { ensureMember } from './lib/keys';
import { benchLogger } from './lib/log';
import { printApiReport } from './lib/report';
import { explainSearch } from './lib/search-plan';
import { apiBenchEnv } from './lib/service-env';
import { representativeSearch } from './lib/traffic';
import { DEFAULT_LEADS, seedLeads } from './seed-leads';

const USAGE = 'npm run bench -- api [--leads N] [--duration S] [--connections C] [--warmup S]';

/**
 * `npm run bench -- api`: the real API (its own process, production mode) against a bare Koa app,
 * both driven over loopback from this process. Progress on stderr; the table, then one JSON line
 * with every figure, on stdout. Exits 1 when any response was not 2xx: such a run measured errors.
 */
export async function main(args: string[]) {
  const settings = parseIntFlags(
    args,
    { leads: DEFAULT_LEADS, duration: 10, connections: 50, warmup: 2 },
    USAGE,
  );
  const log = benchLogger('bench');
  await withCleanup(log, async (stops) => {
    const { pg, db } = await openBenchDatabase(log, stops);
    const workspaceId = await benchWorkspace(db, settings.leads);
    const seed = await seedLeads(db, workspaceId, settings.leads, log);
    await ensureMember(db, workspaceId);

    log.info('building (npm run build), then starting the API and the bare Koa baseline');
    buildForProduction();
    const [api, bare] = await Promise.all([
      startService('api', 'dist/api/main.js', await freePort(), apiBenchEnv(pg.url), '/api/v1/me'),
      startService(
        'bare koa',
        'dist/bench/bare-koa.js',
        await freePort(),
        { ...process.env, DATABASE_URL: pg.url },
        '/',
      ),
    ]);
    stops.push(api.stop, bare.stop);

    const results = await runApiPhases(db, workspaceId, { api, bare }, settings, log);

    log.info('EXPLAIN (ANALYZE, BUFFERS) of the searches');
    const plan = await explainSearch(db, workspaceId, representativeSearch());
    const plansByKind = [];
    for (const query of results.fragments.slice(0, 5))
      plansByKind.push(await explainSearch(db, workspaceId, query));

    const failures = printApiReport({
      settings,
      seed,
      results,
      plan,
      plansByKind,
      apiRequestsCutOff: api.abortedRequests(),
    });
    if (failures > 0) {
      log.error(`${failures} non-2xx responses or errors: these figures measure failures, not the API`);
      process.exitCode = 1;
    }
  });
}
