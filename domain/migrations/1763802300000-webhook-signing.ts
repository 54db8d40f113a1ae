import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signing per endpoint: the scheme its deliveries carry (`service`, Standard Webhooks' `standard`, or
 * `both`), and the secret a rotation replaced, kept (encrypted) until its overlap ends so every delivery
 * meanwhile is signed with both. The reconciler destroys it once the overlap is over.
 */
export class WebhookSigning1763802300000 implements MigrationInterface {
  name = 'WebhookSigning1763802300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_endpoints
        ADD COLUMN signing_scheme text NOT NULL DEFAULT 'service',
        ADD COLUMN previous_secret_ciphertext bytea,
        ADD COLUMN previous_secret_expires_at timestamptz,
        ADD CONSTRAINT webhook_endpoints_signing_scheme_check
          CHECK ((signing_scheme = ANY (ARRAY['service'::text, 'standard'::text, 'both'::text]))),
        ADD CONSTRAINT webhook_endpoints_previous_secret_check
          CHECK (((previous_secret_ciphertext IS NULL) = (previous_secret_expires_at IS NULL)));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_endpoints
        DROP COLUMN previous_secret_expires_at,
        DROP COLUMN previous_secret_ciphertext,
        DROP COLUMN signing_scheme;
    `);
  }
}
