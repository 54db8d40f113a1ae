import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENTITIES } from '../../domain/entities';
import { freshDatabase, type TestDatabase } from '../helpers/db';

describe('the entities and the migrations', () => {
  let t: TestDatabase;
  before(async () => {
    t = await freshDatabase();
  });
  after(() => t.drop());

  it('say the same thing: a migration generated from the entities against the migrated database is empty', async () => {
    const sql = await t.db.driver.createSchemaBuilder().log();
    assert.deepEqual(
      sql.upQueries.map((q) => q.query),
      [],
      'the entities and the migrations disagree: write a migration, or fix the entity',
    );
  });

  it('cover every table the migrations create', async () => {
    const tables = await t.db.query<{ table_name: string }[]>(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_name NOT IN ('migrations', 'typeorm_metadata') ORDER BY 1`,
    );
    assert.deepEqual(
      tables.map((r) => r.table_name),
      ENTITIES.map((e) => e.options.tableName).sort(),
    );
  });
});
