import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The console (api/console/) is a door of its own: its requests and its members' operations are audited as `console`. */
export class ConsoleDoor1763802950000 implements MigrationInterface {
  name = 'ConsoleDoor1763802950000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE audit_log DROP CONSTRAINT audit_log_door_check;
      ALTER TABLE audit_log ADD CONSTRAINT audit_log_door_check
        CHECK (door IN ('rest', 'mcp', 'admin', 'activity', 'public', 'agent', 'console'));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM audit_log WHERE door = 'console';
      ALTER TABLE audit_log DROP CONSTRAINT audit_log_door_check;
      ALTER TABLE audit_log ADD CONSTRAINT audit_log_door_check
        CHECK (door IN ('rest', 'mcp', 'admin', 'activity', 'public', 'agent'));
    `);
  }
}
