import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { parse } from 'yaml';
import type * as yup from 'yup';
import { createWorkspace } from '../../domain/identity/operations/workspace-create';
import { operatorActor } from '../../domain/kernel/actor';
import type { Operation, Services } from '../../domain/kernel/operation';
import { runOperation, type RunOptions } from '../../domain/kernel/runner';
import type { Logger } from '../../infra/logger';
import type { Stops } from '../../tooling/cleanup';
import { repoRoot } from '../../tooling/paths';
import { recreateDatabase, type EmbeddedPostgres } from '../../tooling/postgres';
import { startStack } from '../../tooling/stack';
import { testServices } from '../../tooling/services';

export const benchOperator = operatorActor({ door: 'admin', requestId: 'bench' });

/** Runs a registered operation as the operator, as the admin CLI would. */
export const asBenchOperator = <S extends yup.AnyObjectSchema, O>(
  services: Services,
  op: Operation<S, O>,
  input: Record<string, unknown>,
  opts: RunOptions = {},
) => runOperation(services, op, benchOperator, input, opts);

// Kept between runs so a 1M-lead seed is paid for once; `rm -rf .data/bench` starts over.
const benchDataDir = () => path.join(repoRoot(), '.data', 'bench', 'pg');

export type BenchDatabase = { pg: EmbeddedPostgres; db: DataSource };

const DATABASE = 'bench';

/**
 * PostgreSQL's memory as docker-compose.yml deploys it (the default of its `shared_buffers`), read
 * from that file so the two cannot drift: a benchmark of 1M leads on the built-in 128 MB would
 * measure the OS page cache, not the service.
 */
export function deployedPostgresSettings(): Record<string, string> {
  const compose = parse(readFileSync(path.join(repoRoot(), 'docker-compose.yml'), 'utf8'), {
    merge: true,
  }) as {
    services: { postgres: { command: string[] } };
  };
  const setting = compose.services.postgres.command.find((c) => c.startsWith('shared_buffers='));
  const value = /^shared_buffers=\$\{\w+:-([^}]+)\}$/.exec(setting ?? '')?.[1];
  if (!value) throw new Error('docker-compose.yml: postgres has no shared_buffers=${VAR:-default}');
  return { shared_buffers: value };
}

/**
 * PostgreSQL with its default durability (no `fast` mode): POST latency should include the WAL
 * flush a production commit pays; and with the memory docker-compose.yml gives it. A bench that needs a server of its own passes its `dataDir`;
 * `fresh` drops and recreates the database (quicker than initdb, and safe against a server a
 * killed run left behind, which startEmbeddedPostgres stops first).
 */
export async function openBenchDatabase(
  log: Logger,
  stops: Stops,
  opts: { dataDir?: string; poolSize?: number; fresh?: boolean; settings?: Record<string, string> } = {},
): Promise<BenchDatabase> {
  const { postgres: pg } = await startStack({
    log,
    stops,
    postgres: {
      dataDir: opts.dataDir ?? benchDataDir(),
      database: DATABASE,
      settings: { ...deployedPostgresSettings(), ...opts.settings },
    },
  });
  // Two harness calls: `fresh` recreates the database between PostgreSQL and the migrations.
  if (opts.fresh) await recreateDatabase(pg.url, DATABASE);
  const { db } = await startStack({ log, stops, database: { url: pg.url, poolSize: opts.poolSize ?? 4 } });
  return { pg, db };
}

/** One workspace per seed size, so a 20k trial run never mixes with the 1M data set. */
export async function benchWorkspace(db: DataSource, leads: number): Promise<string> {
  const name = `Bench ${leads} leads`;
  const [existing] = await db.query<{ id: string }[]>(
    'SELECT id FROM workspaces WHERE name = $1 ORDER BY created_at LIMIT 1',
    [name],
  );
  if (existing) return existing.id;
  return (
    await asBenchOperator(testServices(db), createWorkspace, {
      name,
      timezone: 'Europe/London',
      industry: 'bench',
    })
  ).id;
}
