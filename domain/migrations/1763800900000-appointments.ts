import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Appointments (issue 20): one row per booking, and a CalDAV calendar as a connection that carries
 * its calendar URL, user name and password (encrypted under SECRETS_KEY, like webhook secrets).
 */
export class Appointments1763800900000 implements MigrationInterface {
  name = 'Appointments1763800900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE connections
        ADD COLUMN calendar_url text,
        ADD COLUMN username text,
        ADD COLUMN password_ciphertext bytea;

      CREATE TABLE appointments (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        lead_id uuid NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'REQUESTED'
          CHECK (status IN ('REQUESTED', 'PENDING', 'CONFIRMED', 'DECLINED', 'CANCELLED', 'NO_SHOW')),
        starts_at timestamptz NOT NULL,
        ends_at timestamptz NOT NULL,
        timezone text NOT NULL,
        title text NOT NULL,
        note text,
        provider text NOT NULL,
        connection_id uuid REFERENCES connections(id),
        calendar_event_url text,
        reason text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT appointments_window_check
          CHECK (ends_at > starts_at AND ends_at <= starts_at + interval '8 hours')
      );
      CREATE INDEX appointments_lead ON appointments (lead_id, starts_at);
      CREATE INDEX appointments_workspace_start ON appointments (workspace_id, starts_at);
      -- The reconciler's scan for bookings whose workflow never started.
      CREATE INDEX appointments_open ON appointments (created_at)
        WHERE status IN ('REQUESTED', 'PENDING', 'CONFIRMED');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE appointments;
      ALTER TABLE connections DROP COLUMN calendar_url, DROP COLUMN username, DROP COLUMN password_ciphertext;
    `);
  }
}
