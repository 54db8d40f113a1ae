import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { createLogger } from '../../infra/logger';
import { createStops } from '../../tooling/cleanup';
import { startStack } from '../../tooling/stack';

const log = createLogger('test-db', 'warn');

export const testDatabaseUrl = (): string => {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the tests with `npm test`');
  return url;
};

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

export type TestDatabase = { db: DataSource; url: string; drop: () => Promise<void> };

/** A new, migrated database on the run's PostgreSQL, so test files never see each other's rows. */
export async function freshDatabase(): Promise<TestDatabase> {
  const admin = testDatabaseUrl();
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = withDatabase(admin, name);
  const stops = createStops(log);
  const { db } = await startStack({ log, stops, database: { url, poolSize: 10 } });
  return {
    db,
    url,
    drop: async () => {
      await stops.stopAll();
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
