import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1763800200000 implements MigrationInterface {
  name = 'Webhooks1763800200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      -- The exact bytes sent on every attempt of every delivery of the event.
      ALTER TABLE events ADD COLUMN envelope text;

      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        url text NOT NULL,
        event_types text[] NOT NULL CHECK (cardinality(event_types) > 0),
        owner_user_id uuid REFERENCES users(id),
        status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'DISABLED', 'DELETED')),
        disabled_reason text,
        -- AES-256-GCM (iv | tag | ciphertext) under SECRETS_KEY; the secret is never stored in clear.
        secret_ciphertext bytea NOT NULL,
        consecutive_failures integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX webhook_endpoints_workspace ON webhook_endpoints (workspace_id) WHERE status = 'ACTIVE';

      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        event_id text NOT NULL REFERENCES events(id) ON DELETE CASCADE,
        event_type text NOT NULL,
        status text NOT NULL DEFAULT 'PENDING'
          CHECK (status IN ('PENDING', 'FAILED', 'SUCCEEDED', 'EXHAUSTED', 'CANCELLED')),
        attempts integer NOT NULL DEFAULT 0,
        response_status integer,
        next_attempt_at timestamptz,
        delivered_at timestamptz,
        -- Bumped by a resend: each generation is a workflow of its own (webhook-delivery:<id>:r<n>).
        generation integer NOT NULL DEFAULT 0,
        -- Set when this generation's first attempt is recorded; the relay starts every PENDING row without it.
        workflow_started_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (event_id, endpoint_id)
      );
      CREATE INDEX webhook_deliveries_unstarted ON webhook_deliveries (created_at) WHERE workflow_started_at IS NULL;
      CREATE INDEX webhook_deliveries_workspace ON webhook_deliveries (workspace_id, created_at DESC, id DESC);
      CREATE INDEX webhook_deliveries_waiting ON webhook_deliveries (endpoint_id) WHERE status IN ('PENDING', 'FAILED');

      CREATE TABLE webhook_attempts (
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        number integer NOT NULL,
        started_at timestamptz NOT NULL,
        duration_ms integer NOT NULL,
        response_status integer,
        error_class text,
        PRIMARY KEY (delivery_id, number)
      );

      CREATE TABLE notifications (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        user_id uuid REFERENCES users(id),
        kind text NOT NULL,
        message text NOT NULL,
        data jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX notifications_workspace ON notifications (workspace_id, created_at DESC);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE notifications; DROP TABLE webhook_attempts; DROP TABLE webhook_deliveries;
      DROP TABLE webhook_endpoints; ALTER TABLE events DROP COLUMN envelope;
    `);
  }
}
