import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An attempt's start is on its delivery before its request leaves (issue 57): which attempt is being
 * sent, by which worker, under which token (one run of the attempt), and until when its holder may still
 * be sending or recording it. A re-run of the attempt (its workflow task was lost while the first ran)
 * that finds it live sends nothing and asks again later; the holder's record clears it. All four are
 * set together or not at all.
 */
export class AttemptSending1763803200000 implements MigrationInterface {
  name = 'AttemptSending1763803200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_deliveries
        ADD COLUMN sending_token uuid,
        ADD COLUMN sending_attempt integer,
        ADD COLUMN sending_by text,
        ADD COLUMN sending_until timestamptz,
        ADD CONSTRAINT webhook_deliveries_sending_check CHECK (
          (sending_token IS NULL) = (sending_attempt IS NULL)
          AND (sending_token IS NULL) = (sending_by IS NULL)
          AND (sending_token IS NULL) = (sending_until IS NULL));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_deliveries
        DROP CONSTRAINT webhook_deliveries_sending_check,
        DROP COLUMN sending_until,
        DROP COLUMN sending_by,
        DROP COLUMN sending_attempt,
        DROP COLUMN sending_token;
    `);
  }
}
