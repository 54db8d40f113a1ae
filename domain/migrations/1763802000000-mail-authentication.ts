import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Mail whose sender is proven. An inbound email keeps its verdict (`authenticity`: verified when its
 * From domain passed DKIM or SPF aligned with it, unverified otherwise) and the checks in words
 * (`authentication`); an unverified one is stored and shown but acts on nothing. An email we sent
 * keeps what the recipient's side reported of it, authenticated (`feedback`: a hard bounce or a spam
 * complaint), which a campaign's brake counts. A campaign says why it is paused (a person, or the
 * deliverability brake) and when; a workspace may tighten the brake's thresholds.
 *
 * Messages stored before this have no verdict (null): they were received and acted on as before.
 */
export class MailAuthentication1763802000000 implements MigrationInterface {
  name = 'MailAuthentication1763802000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE messages
        ADD COLUMN authenticity text,
        ADD COLUMN authentication text,
        ADD COLUMN feedback text,
        ADD CONSTRAINT messages_authenticity_check
          CHECK (authenticity = ANY (ARRAY['verified'::text, 'unverified'::text])),
        ADD CONSTRAINT messages_feedback_check
          CHECK (feedback = ANY (ARRAY['hard_bounce'::text, 'complaint'::text]));
      CREATE INDEX messages_campaign_feedback ON messages (campaign_id) WHERE feedback IS NOT NULL;

      ALTER TABLE campaigns
        ADD COLUMN paused_reason text,
        ADD COLUMN pause_detail text,
        ADD COLUMN paused_at timestamptz,
        ADD CONSTRAINT campaigns_paused_reason_check
          CHECK (paused_reason = ANY (ARRAY['person'::text, 'deliverability'::text]));
      UPDATE campaigns SET paused_reason = 'person', paused_at = updated_at WHERE status = 'PAUSED';

      ALTER TABLE workspaces ADD COLUMN deliverability jsonb;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE workspaces DROP COLUMN deliverability;
      ALTER TABLE campaigns DROP COLUMN paused_reason, DROP COLUMN pause_detail, DROP COLUMN paused_at;
      DROP INDEX messages_campaign_feedback;
      ALTER TABLE messages DROP COLUMN authenticity, DROP COLUMN authentication, DROP COLUMN feedback;
    `);
  }
}
