import type { MigrationInterface, QueryRunner } from 'typeorm';

/** leads.search_text's expression as this migration wrote it (a migration is frozen: it imports no area). */
const SEARCH_TEXT =
  "lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(phone, ''))";

/**
 * The tables became TypeORM entities. TypeORM keeps what it cannot read back from PostgreSQL in a
 * table of its own: the expression of a generated column (`leads.search_text`), as the entity writes
 * it. Recorded here so that comparing the entities with the database finds nothing to change.
 */
export class Entities1763800700000 implements MigrationInterface {
  name = 'Entities1763800700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS typeorm_metadata (
        "type" varchar NOT NULL, "database" varchar, "schema" varchar, "table" varchar, "name" varchar, "value" text
      )`);
    await q.query(
      `INSERT INTO typeorm_metadata ("type", "database", "schema", "table", "name", "value")
       VALUES ('GENERATED_COLUMN', current_database(), 'public', 'leads', 'search_text', $1)`,
      [SEARCH_TEXT],
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE typeorm_metadata`);
  }
}
