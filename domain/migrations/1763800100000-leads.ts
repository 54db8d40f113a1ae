import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Leads1763800100000 implements MigrationInterface {
  name = 'Leads1763800100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
      CREATE EXTENSION IF NOT EXISTS btree_gin;
      CREATE TABLE leads (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        first_name text,
        last_name text,
        email text CHECK (email = lower(btrim(email))),
        phone text CHECK (phone ~ '^\\+?[0-9]{3,20}$'),
        postcode text,
        status text NOT NULL DEFAULT 'NEW'
          CHECK (status IN ('NEW', 'CONTACTED', 'RESPONDED', 'QUALIFIED', 'BOOKED', 'WON', 'LOST')),
        source text,
        follow_up text NOT NULL DEFAULT 'NOT_STARTED' CHECK (follow_up IN ('NOT_STARTED', 'ACTIVE', 'STOPPED')),
        needs_attention boolean NOT NULL DEFAULT false,
        consent_at timestamptz,
        answers jsonb NOT NULL DEFAULT '{}',
        score_id uuid,
        score_total integer,
        score_grade text,
        archived_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        -- Lower-cased text that GET /leads?query= matches against (name, email, phone).
        search_text text GENERATED ALWAYS AS (
          lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(phone, ''))
        ) STORED
      );
      -- One live lead per address: intake matching relies on it, concurrent intakes cannot both create.
      CREATE UNIQUE INDEX leads_email ON leads (workspace_id, email) WHERE email IS NOT NULL AND archived_at IS NULL;
      CREATE UNIQUE INDEX leads_phone ON leads (workspace_id, phone) WHERE phone IS NOT NULL AND archived_at IS NULL;
      CREATE INDEX leads_recent ON leads (workspace_id, created_at DESC, id DESC) WHERE archived_at IS NULL;
      CREATE INDEX leads_status ON leads (workspace_id, status, created_at DESC) WHERE archived_at IS NULL;
      -- workspace_id inside the GIN index (btree_gin), so a search never reads another workspace's postings.
      CREATE INDEX leads_search ON leads USING gin (workspace_id, search_text gin_trgm_ops) WHERE archived_at IS NULL;

      CREATE TABLE lead_notes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        lead_id uuid NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
        body text NOT NULL CHECK (length(body) BETWEEN 1 AND 2000),
        author_user_id uuid,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX lead_notes_lead ON lead_notes (lead_id, created_at DESC);

      CREATE TABLE messages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        lead_id uuid NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
        channel text NOT NULL,
        direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
        status text NOT NULL,
        body text NOT NULL,
        at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX messages_lead_recent ON messages (lead_id, at DESC, id DESC);

      CREATE TABLE touches (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        lead_id uuid NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
        source_type text NOT NULL,
        source text NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('CREATED', 'MERGED', 'DUPLICATE', 'SUPPRESSED')),
        contact jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX touches_lead ON touches (lead_id, created_at DESC);

      CREATE TABLE suppressions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        address text NOT NULL,
        channel text NOT NULL,
        reason text NOT NULL,
        source text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (workspace_id, address, channel)
      );

      CREATE TABLE scores (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        lead_id uuid NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
        total integer NOT NULL CHECK (total BETWEEN 0 AND 100),
        grade text NOT NULL CHECK (grade IN ('A', 'B', 'C', 'D')),
        confidence numeric(4, 3) NOT NULL CHECK (confidence BETWEEN 0 AND 1),
        trigger_event text NOT NULL,
        scoring_version text NOT NULL,
        reasons jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX scores_lead ON scores (lead_id, created_at DESC);

      -- The transactional outbox: written in the same transaction as the change that caused it.
      CREATE TABLE events (
        id text PRIMARY KEY,
        -- Commit-independent order of emission (created_at has only millisecond precision).
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        type text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        data jsonb NOT NULL
      );
      CREATE INDEX events_workspace ON events (workspace_id, created_at DESC);

      CREATE TABLE idempotency_keys (
        key_id uuid NOT NULL,
        idempotency_key text NOT NULL,
        request_hash bytea NOT NULL,
        response_status integer NOT NULL,
        response_body jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (key_id, idempotency_key)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE idempotency_keys; DROP TABLE events; DROP TABLE scores; DROP TABLE suppressions;
      DROP TABLE touches; DROP TABLE messages; DROP TABLE lead_notes; DROP TABLE leads;
    `);
  }
}
