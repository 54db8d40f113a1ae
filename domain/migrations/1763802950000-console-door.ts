import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The console (api/console/) is a door of its own: its requests and its members' operations are
 * audited as `console`. Its key list shows when each key was last used and its audit page filters by
 * key: both read a key's newest rows, which an index on key_id finds without reading the workspace's.
 */
export class ConsoleDoor1763802950000 implements MigrationInterface {
  name = 'ConsoleDoor1763802950000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE audit_log DROP CONSTRAINT audit_log_door_check;
      ALTER TABLE audit_log ADD CONSTRAINT audit_log_door_check
        CHECK (door IN ('rest', 'mcp', 'admin', 'activity', 'public', 'agent', 'console'));
      CREATE INDEX audit_log_key ON audit_log (key_id, id DESC) WHERE key_id IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX audit_log_key;
      DELETE FROM audit_log WHERE door = 'console';
      ALTER TABLE audit_log DROP CONSTRAINT audit_log_door_check;
      ALTER TABLE audit_log ADD CONSTRAINT audit_log_door_check
        CHECK (door IN ('rest', 'mcp', 'admin', 'activity', 'public', 'agent'));
    `);
  }
}
