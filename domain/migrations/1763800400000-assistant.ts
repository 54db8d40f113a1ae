import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the assistant endpoint adds: connected systems (disconnecting one waits for approval), the
 * approval requests an assistant's key parks (mirrored from their Temporal workflows, so a key can
 * list its own), and `parked` as an audit outcome.
 */
export class Assistant1763800400000 implements MigrationInterface {
  name = 'Assistant1763800400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE connections (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        system text NOT NULL CHECK (length(system) BETWEEN 1 AND 100),
        status text NOT NULL DEFAULT 'CONNECTED' CHECK (status IN ('CONNECTED', 'DISCONNECTED')),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        disconnected_at timestamptz
      );
      CREATE UNIQUE INDEX connections_live ON connections (workspace_id, lower(system)) WHERE status = 'CONNECTED';

      CREATE TABLE approvals (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        operation text NOT NULL,
        input jsonb NOT NULL,
        input_hash bytea NOT NULL,
        summary text NOT NULL,
        requested_by_key uuid NOT NULL,
        requested_by_user uuid NOT NULL,
        status text NOT NULL DEFAULT 'PENDING'
          CHECK (status IN ('PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'EXECUTED', 'FAILED')),
        decided_by uuid,
        decided_at timestamptz,
        reason text,
        outcome jsonb,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        finished_at timestamptz
      );
      -- The same key asking the same thing while it waits gets the same request back.
      CREATE UNIQUE INDEX approvals_pending ON approvals (requested_by_key, operation, input_hash) WHERE status = 'PENDING';
      CREATE INDEX approvals_workspace ON approvals (workspace_id, created_at DESC);
      CREATE INDEX approvals_key ON approvals (requested_by_key, created_at DESC);

      ALTER TABLE audit_log DROP CONSTRAINT audit_log_outcome_check;
      ALTER TABLE audit_log ADD CONSTRAINT audit_log_outcome_check
        CHECK (outcome IN ('allowed', 'refused', 'failed', 'parked'));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM audit_log WHERE outcome = 'parked';
      ALTER TABLE audit_log DROP CONSTRAINT audit_log_outcome_check;
      ALTER TABLE audit_log ADD CONSTRAINT audit_log_outcome_check CHECK (outcome IN ('allowed', 'refused', 'failed'));
      DROP TABLE approvals;
      DROP TABLE connections;
    `);
  }
}
