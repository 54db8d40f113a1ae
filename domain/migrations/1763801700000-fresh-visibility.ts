import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Autovacuum for the big, busy tables at 1% of their rows instead of 20%. The analytics summary counts
 * a period's leads with one index-only scan, which stays index-only only where the visibility map says
 * a page has not changed since the last vacuum; at the default a table of a million leads waited for
 * 200,000 changes, and after a few thousand intakes (each lead inserted, then scored) the scan read the
 * heap for 35,000 of 96,000 rows: 165 ms instead of 75 for 30 days. A vacuum of a table whose pages are
 * nearly all visible skips those pages, so vacuuming more often costs little.
 */
export class FreshVisibility1763801700000 implements MigrationInterface {
  name = 'FreshVisibility1763801700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE leads SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01,
                             autovacuum_analyze_scale_factor = 0.02);
      ALTER TABLE messages SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01,
                                autovacuum_analyze_scale_factor = 0.02);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE leads RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_insert_scale_factor,
                               autovacuum_analyze_scale_factor);
      ALTER TABLE messages RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_insert_scale_factor,
                                  autovacuum_analyze_scale_factor);
    `);
  }
}
