import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bounce and complaint reports that prove where they come from. Every report that reaches the inbound
 * route is kept in `mail_reports`, proven or not: proven by the per-message return path it was
 * delivered to (`verp`) or by a configured feedback loop's signature (`feedback_domain`), or unproven
 * with the reason, and then it changed nothing. A report's own Message-ID is stored once per workspace,
 * so a replay is neither stored nor acted on again. Reports received before this were not kept.
 */
export class MailReports1763802800000 implements MigrationInterface {
  name = 'MailReports1763802800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE mail_reports (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        message_id uuid REFERENCES messages(id) ON DELETE SET NULL,
        kind text NOT NULL CONSTRAINT mail_reports_kind_check
          CHECK (kind = ANY (ARRAY['bounce'::text, 'complaint'::text])),
        proven boolean NOT NULL,
        proof text CONSTRAINT mail_reports_proof_check
          CHECK (proof = ANY (ARRAY['verp'::text, 'feedback_domain'::text])),
        reason text,
        status text,
        feedback_type text,
        report_message_id text,
        received_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      -- A message's delete (its lead erased) sets its reports' message_id to null: found by this.
      CREATE INDEX mail_reports_message ON mail_reports (message_id) WHERE message_id IS NOT NULL;
      CREATE UNIQUE INDEX mail_reports_report_message_id ON mail_reports (workspace_id, report_message_id)
        WHERE report_message_id IS NOT NULL;
      -- The retention purge takes the oldest (AUDIT_RETENTION_DAYS, as the audit rows beside them).
      CREATE INDEX mail_reports_received ON mail_reports (received_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE mail_reports`);
  }
}
