import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Messages that really leave: an outbound message is a row written in the change's transaction (an
 * outbox, like webhook deliveries) that a Temporal workflow sends through a channel provider. Inbound
 * messages keep the provider's id, so a replayed provider webhook is recognised. Public pages and
 * provider webhooks are audited under a door of their own.
 */
export class Channels1763800800000 implements MigrationInterface {
  name = 'Channels1763800800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE messages
        ADD COLUMN to_address text,
        ADD COLUMN subject text,
        ADD COLUMN attempts integer NOT NULL DEFAULT 0,
        ADD COLUMN error text,
        ADD COLUMN provider_message_id text,
        ADD COLUMN in_reply_to text,
        ADD COLUMN marketing boolean NOT NULL DEFAULT false,
        ADD COLUMN started_at timestamptz,
        ADD COLUMN sent_at timestamptz;
      CREATE INDEX messages_unstarted ON messages (at) WHERE direction = 'outbound' AND started_at IS NULL;
      CREATE UNIQUE INDEX messages_provider_id ON messages (workspace_id, channel, provider_message_id)
        WHERE direction = 'inbound' AND provider_message_id IS NOT NULL;

      ALTER TABLE workspaces ADD COLUMN inbound_email_secret_hash text;

      ALTER TABLE audit_log DROP CONSTRAINT audit_log_door_check;
      ALTER TABLE audit_log ADD CONSTRAINT audit_log_door_check
        CHECK (door IN ('rest', 'mcp', 'admin', 'activity', 'public'));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM audit_log WHERE door = 'public';
      ALTER TABLE audit_log DROP CONSTRAINT audit_log_door_check;
      ALTER TABLE audit_log ADD CONSTRAINT audit_log_door_check
        CHECK (door IN ('rest', 'mcp', 'admin', 'activity'));
      ALTER TABLE workspaces DROP COLUMN inbound_email_secret_hash;
      DROP INDEX messages_provider_id;
      DROP INDEX messages_unstarted;
      ALTER TABLE messages
        DROP COLUMN to_address, DROP COLUMN subject, DROP COLUMN attempts, DROP COLUMN error,
        DROP COLUMN provider_message_id, DROP COLUMN in_reply_to, DROP COLUMN marketing,
        DROP COLUMN started_at, DROP COLUMN sent_at;
    `);
  }
}
