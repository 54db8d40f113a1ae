import path from 'node:path';
import { Client as PgClient } from 'pg';
import type { DataSource } from 'typeorm';
import { operatorActor } from '../../domain/actor';
import type { CallContext } from '../../domain/audit';
import { openDatabase } from '../../domain/data-source';
import { createWorkspace } from '../../domain/operations/create-workspace';
import type { Logger } from '../../infra/logger';
import { repoRoot } from '../../infra/paths';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../infra/postgres';

export const operator: CallContext = { door: 'admin', requestId: 'bench' };
export const benchOperator = operatorActor(operator);

// Kept between runs so a 1M-lead seed is paid for once; `rm -rf .data/bench` starts over.
export const benchDataDir = () => path.join(repoRoot(), '.data', 'bench', 'pg');

export type BenchDatabase = { pg: EmbeddedPostgres; db: DataSource };

const DATABASE = 'bench';

/**
 * PostgreSQL with its default durability (no `fast` mode): POST latency should include the WAL
 * flush a production commit pays. A bench that needs a server of its own passes its `dataDir`;
 * `fresh` drops and recreates the database (quicker than initdb, and safe against a server a
 * killed run left behind, which startEmbeddedPostgres stops first).
 */
export async function openBenchDatabase(
  log: Logger,
  stops: (() => Promise<void>)[],
  opts: { dataDir?: string; poolSize?: number; fresh?: boolean } = {},
): Promise<BenchDatabase> {
  const pg = await startEmbeddedPostgres({
    dataDir: opts.dataDir ?? benchDataDir(),
    database: DATABASE,
    log,
  });
  stops.push(pg.stop);
  if (opts.fresh) await recreateDatabase(pg.url);
  const db = await openDatabase(pg.url, { migrate: true, poolSize: opts.poolSize ?? 4 });
  stops.push(() => db.destroy());
  return { pg, db };
}

async function recreateDatabase(url: string) {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new PgClient({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${DATABASE}"`);
  } finally {
    await client.end();
  }
}

/** One workspace per seed size, so a 20k trial run never mixes with the 1M data set. */
export async function benchWorkspace(db: DataSource, leads: number): Promise<string> {
  const name = `Bench ${leads} leads`;
  const [existing] = await db.query<{ id: string }[]>(
    'SELECT id FROM workspaces WHERE name = $1 ORDER BY created_at LIMIT 1',
    [name],
  );
  if (existing) return existing.id;
  return (await createWorkspace(db, operator, { name, timezone: 'Europe/London', industry: 'bench' })).id;
}
