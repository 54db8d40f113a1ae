import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The relay takes unstarted rows round robin per workspace (each workspace's oldest, then each one's
 * second...), so its partial indexes of unstarted rows lead with the workspace.
 */
export class FairRelay1763802400000 implements MigrationInterface {
  name = 'FairRelay1763802400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX webhook_deliveries_unstarted;
      CREATE INDEX webhook_deliveries_unstarted ON webhook_deliveries (workspace_id, created_at)
        WHERE workflow_started_at IS NULL AND status = 'PENDING';
      DROP INDEX messages_unstarted;
      CREATE INDEX messages_unstarted ON messages (workspace_id, at)
        WHERE direction = 'outbound' AND started_at IS NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX messages_unstarted;
      CREATE INDEX messages_unstarted ON messages (at) WHERE direction = 'outbound' AND started_at IS NULL;
      DROP INDEX webhook_deliveries_unstarted;
      CREATE INDEX webhook_deliveries_unstarted ON webhook_deliveries (created_at) WHERE workflow_started_at IS NULL;
    `);
  }
}
