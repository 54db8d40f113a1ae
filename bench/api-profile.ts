import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { withCleanup } from '../tooling/cleanup';
import { repoRoot } from '../tooling/paths';
import { freePort } from '../tooling/processes';
import { toolCall } from './lib/api-phases';
import { parseIntFlags } from './lib/args';
import { benchWorkspace, openBenchDatabase } from './lib/bench-database';
import { buildForProduction, startService } from './lib/children';
import { cpuBreakdown, type CpuBreakdown } from './lib/cpu-profile';
import { bearer, createKeys, ensureMember, KeyPool } from './lib/keys';
import { hammer, type NextRequest } from './lib/load';
import { benchLogger } from './lib/log';
import { processCpu } from './lib/process-cpu';
import { formatTable } from './lib/report';
import { apiBenchEnv } from './lib/service-env';
import type { Measured } from './lib/stats';
import { intakeBodies, lastPostedNumber, sampleLeadIds, sequence } from './lib/traffic';
import { DEFAULT_LEADS, seedLeads } from './seed-leads';

const USAGE = 'npm run bench -- api-profile [--leads N] [--duration S] [--connections C]';

type Statement = { query: string; calls_per_request: number; mean_ms: number; share_of_db_time: number };
type PhaseProfile = {
  phase: string;
  load: Measured;
  statements_per_request: number;
  commits_per_request: number;
  db_ms_per_request: number;
  /** Of which planning (a prepared statement is planned once per connection, then from its generic plan). */
  plan_ms_per_request: number;
  /** CPU used per request by the API process and by PostgreSQL (all its processes), from /proc. */
  api_cpu_ms_per_request: number;
  postgres_cpu_ms_per_request: number;
  statements: Statement[];
  cpu: CpuBreakdown;
};

/** Every statement any backend ran since the last reset, and the database's commits. */
async function dbCounters(db: DataSource) {
  const statements = await db.query<{ query: string; calls: string; total_ms: number; plan_ms: number }[]>(
    `SELECT query, calls, total_exec_time + total_plan_time AS total_ms, total_plan_time AS plan_ms
       FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND query NOT LIKE '%pg_stat_statements%'`,
  );
  const [commits] = await db.query<{ n: string }[]>(
    'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return { statements, commits: Number(commits!.n) };
}

/**
 * `npm run bench -- api-profile`: where a request's time goes. For `lead.get` through the assistant
 * endpoint, GET /leads/{id} and POST /leads in
 * turn, a fresh API process under `--cpu-prof` takes a warm-up, then `--duration` seconds of load while
 * pg_stat_statements counts every statement; the answer is statements and commits per request, the
 * statements by share of database time, and the API's CPU by package and function. Figures are not
 * comparable with `bench api` (profiling costs the API some speed); the shares are what matter.
 */
export async function main(args: string[]) {
  const settings = parseIntFlags(args, { leads: DEFAULT_LEADS, duration: 10, connections: 50 }, USAGE);
  const log = benchLogger('bench');
  const profileDir = path.join(repoRoot(), '.data', 'bench', 'profile');
  rmSync(profileDir, { recursive: true, force: true });
  await withCleanup(log, async (stops) => {
    const { pg, db } = await openBenchDatabase(log, stops, {
      settings: {
        shared_preload_libraries: 'pg_stat_statements',
        'pg_stat_statements.track': 'all',
        'pg_stat_statements.track_planning': 'on',
      },
    });
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const workspaceId = await benchWorkspace(db, settings.leads);
    await seedLeads(db, workspaceId, settings.leads, log);
    await ensureMember(db, workspaceId);
    const ids = await sampleLeadIds(db, workspaceId);
    const r = sequence(5);
    const nextBody = intakeBodies(await lastPostedNumber(db, workspaceId));
    const phases: [string, (key: string) => ReturnType<NextRequest>][] = [
      [
        'mcp lead.get',
        (key) =>
          toolCall(key, 'lead.get', { leadId: ids[r(ids.length)]! }, { 'mcp-param-lead-id': 'leadId' }),
      ],
      [
        'GET /leads/{id}',
        (key) => ({ method: 'GET', path: `/api/v1/leads/${ids[r(ids.length)]}`, headers: bearer(key) }),
      ],
      [
        'POST /leads',
        (key) => {
          const { n, body } = nextBody();
          return {
            method: 'POST',
            path: '/api/v1/leads',
            headers: {
              ...bearer(key),
              'content-type': 'application/json',
              'idempotency-key': `profile-${n}`,
            },
            body: JSON.stringify(body),
          };
        },
      ],
    ];
    buildForProduction();
    const results: PhaseProfile[] = [];
    for (const [phase, make] of phases) {
      const dir = path.join(profileDir, phase.replace(/\W+/g, '-').replace(/^-|-$/g, ''));
      mkdirSync(dir, { recursive: true });
      const api = await startService(
        'api',
        'dist/api/main.js',
        await freePort(),
        apiBenchEnv(pg.url),
        '/api/v1/me',
        ['--cpu-prof', `--cpu-prof-dir=${dir}`],
      );
      // Enough keys that none passes the 300 a minute limit at a few thousand requests a second.
      const keys = new KeyPool(
        await createKeys(db, workspaceId, Math.ceil((4000 * (settings.duration + 2)) / 250)),
      );
      const next: NextRequest = () => make(keys.next());
      log.info(`${phase}: 2 s warm-up, then ${settings.duration} s at ${settings.connections} connections`);
      await hammer(api.url, settings.connections, 2, next);
      await db.query('SELECT pg_stat_statements_reset()');
      const before = await dbCounters(db);
      const cpuBefore = processCpu(api.pid);
      const load = await hammer(api.url, settings.connections, settings.duration, next);
      const cpuAfter = processCpu(api.pid);
      // The audit writer's last batch commits a moment after the last answer.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const after = await dbCounters(db);
      await api.stop();
      const requests = load.requests;
      const dbMs = after.statements.reduce((sum, s) => sum + s.total_ms, 0);
      const per = (n: number) => Math.round((n / requests) * 100) / 100;
      results.push({
        phase,
        load,
        statements_per_request: per(after.statements.reduce((sum, s) => sum + Number(s.calls), 0)),
        // Our own counter reads commit too (two of them): a rounding error at thousands of requests.
        commits_per_request: per(after.commits - before.commits),
        db_ms_per_request: per(dbMs),
        plan_ms_per_request: per(after.statements.reduce((sum, s) => sum + s.plan_ms, 0)),
        api_cpu_ms_per_request: per(cpuAfter.api_ms - cpuBefore.api_ms),
        postgres_cpu_ms_per_request: per(cpuAfter.postgres_ms - cpuBefore.postgres_ms),
        statements: after.statements
          .sort((a, b) => b.total_ms - a.total_ms)
          .slice(0, 12)
          .map((s) => ({
            query: s.query.replace(/\s+/g, ' ').slice(0, 140),
            calls_per_request: per(Number(s.calls)),
            mean_ms: Math.round((s.total_ms / Number(s.calls)) * 1000) / 1000,
            share_of_db_time: Math.round((s.total_ms / dbMs) * 1000) / 1000,
          })),
        cpu: cpuBreakdown(
          path.join(
            dir,
            readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!,
          ),
        ),
      });
    }
    print(results, settings);
  });
}

function print(results: PhaseProfile[], settings: { leads: number; duration: number; connections: number }) {
  console.log(
    `${settings.leads} leads, ${settings.duration} s per phase, ${settings.connections} connections, ` +
      'API under --cpu-prof, PostgreSQL with pg_stat_statements\n',
  );
  for (const p of results) {
    console.log(
      `${p.phase}: ${p.load.rps.toFixed(1)} req/s, p50 ${p.load.p50_ms} ms; per request: ` +
        `${p.statements_per_request} statements, ${p.commits_per_request} commits, ${p.db_ms_per_request} ms in ` +
        `PostgreSQL's statements (${p.plan_ms_per_request} planning); CPU ${p.api_cpu_ms_per_request} ms in the API, ` +
        `${p.postgres_cpu_ms_per_request} ms in PostgreSQL`,
    );
    console.log(
      formatTable(
        ['statement', 'calls/req', 'mean ms', 'share of db time'],
        p.statements.map((s) => [
          s.query,
          String(s.calls_per_request),
          String(s.mean_ms),
          String(s.share_of_db_time),
        ]),
      ),
    );
    console.log(`\nAPI CPU (self time, ${p.cpu.busy_ms} ms busy):`);
    console.log(
      formatTable(
        ['area', 'ms', 'share'],
        p.cpu.by_area.map((a) => [a.name, String(a.ms), String(a.share)]),
      ),
    );
    console.log(
      formatTable(
        ['function', 'ms', 'share'],
        p.cpu.by_function.map((a) => [a.name, String(a.ms), String(a.share)]),
      ),
    );
    console.log('');
  }
  console.log(JSON.stringify({ bench: 'api-profile', ...settings, node: process.version, phases: results }));
}
