import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Analytics: when a lead first got an answer from us (`first_response_at`) and first reached BOOKED or
 * WON (`booked_at`, `won_at`), kept on the lead by triggers so that every write path sets them in its
 * own transaction; filled in for the leads already there; and one covering index, so a period's
 * summary is a single index-only scan.
 */
export class Analytics1763801400000 implements MigrationInterface {
  name = 'Analytics1763801400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE leads
        ADD COLUMN first_response_at timestamptz,
        ADD COLUMN booked_at timestamptz,
        ADD COLUMN won_at timestamptz;

      -- A status reached is remembered once: a lead BOOKED then LOST still counts as booked.
      CREATE FUNCTION leads_milestones() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.status = 'BOOKED' AND NEW.booked_at IS NULL THEN NEW.booked_at := clock_timestamp(); END IF;
        IF NEW.status = 'WON' AND NEW.won_at IS NULL THEN NEW.won_at := clock_timestamp(); END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER leads_milestones BEFORE INSERT OR UPDATE OF status ON leads
        FOR EACH ROW EXECUTE FUNCTION leads_milestones();

      -- Our first message to a lead (queued or sent; not one skipped for a suppressed address, nor one
      -- that failed), whoever wrote it: a person, an agent, a campaign.
      CREATE FUNCTION messages_first_response() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE leads SET first_response_at = NEW.at WHERE id = NEW.lead_id AND first_response_at IS NULL;
        RETURN NULL;
      END $$;
      CREATE TRIGGER messages_first_response AFTER INSERT ON messages
        FOR EACH ROW WHEN (NEW.direction = 'outbound' AND NEW.status NOT IN ('suppressed', 'failed'))
        EXECUTE FUNCTION messages_first_response();

      UPDATE leads l SET first_response_at = m.first
        FROM (SELECT lead_id, min(at) AS first FROM messages
               WHERE direction = 'outbound' AND status NOT IN ('suppressed', 'failed') GROUP BY lead_id) m
       WHERE m.lead_id = l.id;
      UPDATE leads l SET booked_at = coalesce(e.booked, CASE WHEN l.status = 'BOOKED' THEN l.updated_at END),
                         won_at = coalesce(e.won, CASE WHEN l.status = 'WON' THEN l.updated_at END)
        FROM (SELECT (data->>'lead_id')::uuid AS lead_id,
                     min(created_at) FILTER (WHERE data->>'status' = 'BOOKED') AS booked,
                     min(created_at) FILTER (WHERE data->>'status' = 'WON') AS won
                FROM events WHERE type = 'lead.status_changed' GROUP BY 1) e
       WHERE e.lead_id = l.id;
      UPDATE leads SET booked_at = updated_at WHERE status = 'BOOKED' AND booked_at IS NULL;
      UPDATE leads SET won_at = updated_at WHERE status = 'WON' AND won_at IS NULL;

      CREATE INDEX leads_analytics ON leads (workspace_id, created_at)
        INCLUDE (status, source, booked_at, won_at, first_response_at) WHERE archived_at IS NULL;
      CREATE INDEX messages_campaign_at ON messages (workspace_id, at) INCLUDE (status)
        WHERE campaign_id IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX messages_campaign_at;
      DROP INDEX leads_analytics;
      DROP TRIGGER messages_first_response ON messages;
      DROP FUNCTION messages_first_response();
      DROP TRIGGER leads_milestones ON leads;
      DROP FUNCTION leads_milestones();
      ALTER TABLE leads DROP COLUMN first_response_at, DROP COLUMN booked_at, DROP COLUMN won_at;
    `);
  }
}
