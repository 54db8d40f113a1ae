import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Approval requests as tasks: a key may withdraw what it parked (CANCELLED), and a request refused
 * when it ran keeps the operation's own refusal (`error`: code, message, field) so the assistant gets
 * exactly the answer the tool would have given. Connected systems are recorded by their catalogue id
 * (`google_calendar`); rows that named a known system by its name get its id.
 */
export class ApprovalTasks1763800600000 implements MigrationInterface {
  name = 'ApprovalTasks1763800600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE approvals DROP CONSTRAINT approvals_status_check;
      ALTER TABLE approvals ADD CONSTRAINT approvals_status_check
        CHECK (status IN ('PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED', 'EXECUTED', 'FAILED'));
      ALTER TABLE approvals ADD COLUMN error jsonb;

      UPDATE connections c SET system = k.id
        FROM (VALUES ('google_calendar', 'google calendar'), ('microsoft_outlook', 'microsoft outlook'),
                     ('caldav', 'caldav calendar'), ('hubspot', 'hubspot'), ('salesforce', 'salesforce'),
                     ('pipedrive', 'pipedrive'), ('meta_ads', 'meta ads'), ('google_ads', 'google ads'),
                     ('linkedin_ads', 'linkedin ads'), ('stripe', 'stripe'), ('twilio', 'twilio'),
                     ('smtp', 'smtp email')) AS k(id, name)
       WHERE lower(btrim(c.system)) = k.name
         -- a workspace that connected the same system twice under both spellings keeps the older live one
         AND NOT EXISTS (SELECT 1 FROM connections o WHERE o.workspace_id = c.workspace_id AND o.id <> c.id
                           AND o.status = 'CONNECTED' AND c.status = 'CONNECTED' AND lower(o.system) = k.id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE approvals SET status = 'REJECTED', reason = coalesce(reason, 'withdrawn') WHERE status = 'CANCELLED';
      ALTER TABLE approvals DROP COLUMN error;
      ALTER TABLE approvals DROP CONSTRAINT approvals_status_check;
      ALTER TABLE approvals ADD CONSTRAINT approvals_status_check
        CHECK (status IN ('PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'EXECUTED', 'FAILED'));
    `);
  }
}
