import { DataSource } from 'typeorm';
import { Identity1763800000000 } from './migrations/1763800000000-identity';
import { Leads1763800100000 } from './migrations/1763800100000-leads';
import { Webhooks1763800200000 } from './migrations/1763800200000-webhooks';
import { SearchIndex1763800300000 } from './migrations/1763800300000-search-index';
import { Assistant1763800400000 } from './migrations/1763800400000-assistant';

const migrations = [
  Identity1763800000000,
  Leads1763800100000,
  Webhooks1763800200000,
  SearchIndex1763800300000,
  Assistant1763800400000,
];

/**
 * TypeORM gives the service its pool, transactions and migrations; rows are read and written with
 * SQL in each area's row module (docs/decisions.md). Schema changes only ever come from migrations.
 */
function createDataSource(url: string, poolSize = 10): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: [],
    migrations,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: { max: poolSize },
  });
}

export async function openDatabase(url: string, opts: { migrate?: boolean; poolSize?: number } = {}) {
  const db = createDataSource(url, opts.poolSize);
  await db.initialize();
  if (opts.migrate) await migrate(db);
  return db;
}

// Any number of processes may start at once (tests, api + worker); one migrates, the rest wait.
const MIGRATION_LOCK = 7_331_001;

export async function migrate(db: DataSource): Promise<void> {
  const runner = db.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await db.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
}
