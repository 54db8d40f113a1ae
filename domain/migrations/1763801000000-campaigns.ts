import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Campaigns: a draft (audience filter, steps, sending window, daily cap) that, once launched, fixes
 * its audience as recipients and is sent by one Temporal workflow. Each send is a `messages` row keyed
 * by (campaign, lead, step), written before the provider is called, so no step reaches a lead twice.
 */
export class Campaigns1763801000000 implements MigrationInterface {
  name = 'Campaigns1763801000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE campaigns (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (length(name) >= 1 AND length(name) <= 200),
        channel text NOT NULL CHECK (channel IN ('email', 'sms')),
        status text NOT NULL DEFAULT 'DRAFT'
          CHECK (status IN ('DRAFT', 'RUNNING', 'PAUSED', 'COMPLETED')),
        audience jsonb NOT NULL,
        steps jsonb NOT NULL,
        send_window jsonb NOT NULL,
        daily_cap integer NOT NULL CHECK (daily_cap >= 1),
        audience_size integer,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        launched_at timestamptz,
        completed_at timestamptz,
        workflow_started_at timestamptz
      );
      CREATE INDEX campaigns_workspace ON campaigns (workspace_id, created_at DESC);
      CREATE INDEX campaigns_unstarted ON campaigns (launched_at)
        WHERE status = 'RUNNING' AND workflow_started_at IS NULL;

      CREATE TABLE campaign_recipients (
        campaign_id uuid NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        lead_id uuid NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        position integer NOT NULL,
        status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'DONE', 'LEFT')),
        left_reason text,
        next_step integer NOT NULL DEFAULT 0,
        due_at timestamptz NOT NULL,
        PRIMARY KEY (campaign_id, lead_id)
      );
      CREATE INDEX campaign_recipients_due ON campaign_recipients (campaign_id, due_at, position)
        WHERE status = 'ACTIVE';

      ALTER TABLE messages
        ADD COLUMN campaign_id uuid REFERENCES campaigns(id) ON DELETE SET NULL,
        ADD COLUMN campaign_step integer;
      CREATE UNIQUE INDEX messages_campaign_send ON messages (campaign_id, lead_id, campaign_step)
        WHERE campaign_id IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX messages_campaign_send;
      ALTER TABLE messages DROP COLUMN campaign_id, DROP COLUMN campaign_step;
      DROP TABLE campaign_recipients;
      DROP TABLE campaigns;
    `);
  }
}
