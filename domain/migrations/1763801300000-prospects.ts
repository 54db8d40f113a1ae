import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Prospects: candidate lists imported from CSV (one row per candidate, keyed by list and email, or
 * phone when there is no email, so a file imported twice adds nothing), scored by sourcing runs (one
 * Temporal workflow each), and turned into leads by a person's approval.
 */
export class Prospects1763801300000 implements MigrationInterface {
  name = 'Prospects1763801300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE prospect_lists (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (length(name) >= 1 AND length(name) <= 200),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT prospect_lists_workspace_name UNIQUE (workspace_id, name)
      );

      CREATE TABLE sourcing_runs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        list_id uuid NOT NULL REFERENCES prospect_lists(id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'RUNNING' CHECK (status IN ('RUNNING', 'COMPLETED', 'FAILED')),
        scoring_version text NOT NULL,
        max_candidates integer CHECK (max_candidates >= 1),
        scored integer NOT NULL DEFAULT 0,
        dropped integer NOT NULL DEFAULT 0,
        agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        workflow_started_at timestamptz,
        finished_at timestamptz
      );
      CREATE INDEX sourcing_runs_unstarted ON sourcing_runs (created_at)
        WHERE status = 'RUNNING' AND workflow_started_at IS NULL;

      CREATE TABLE prospects (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        list_id uuid NOT NULL REFERENCES prospect_lists(id) ON DELETE CASCADE,
        email text,
        phone text,
        first_name text,
        last_name text,
        company text,
        industry text,
        role text,
        country text,
        website text,
        line integer NOT NULL,
        status text NOT NULL DEFAULT 'NEW'
          CHECK (status IN ('NEW', 'SCORED', 'DROPPED', 'APPROVED', 'REJECTED')),
        score integer CHECK (score >= 0 AND score <= 100),
        reasons jsonb NOT NULL DEFAULT '[]',
        scoring_version text,
        sourcing_run_id uuid REFERENCES sourcing_runs(id) ON DELETE SET NULL,
        dropped_reason text,
        lead_id uuid REFERENCES leads(id) ON DELETE SET NULL,
        decision_reason text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        scored_at timestamptz,
        decided_at timestamptz,
        CONSTRAINT prospects_contact_check CHECK (email IS NOT NULL OR phone IS NOT NULL)
      );
      CREATE UNIQUE INDEX prospects_list_email ON prospects (list_id, email) WHERE email IS NOT NULL;
      CREATE UNIQUE INDEX prospects_list_phone ON prospects (list_id, phone) WHERE email IS NULL;
      CREATE INDEX prospects_list_status ON prospects (list_id, status, score DESC, id);
      CREATE INDEX prospects_workspace ON prospects (workspace_id, created_at DESC);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE prospects, sourcing_runs, prospect_lists;`);
  }
}
