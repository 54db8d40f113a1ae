import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Identity1763800000000 implements MigrationInterface {
  name = 'Identity1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workspaces (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        timezone text NOT NULL DEFAULT 'UTC',
        industry text NOT NULL DEFAULT '',
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL UNIQUE CHECK (email = lower(btrim(email)) AND email LIKE '%_@_%'),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE memberships (
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('viewer', 'member', 'admin', 'owner')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, user_id)
      );
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        owner_user_id uuid NOT NULL REFERENCES users(id),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        environment text NOT NULL DEFAULT 'live',
        prefix text NOT NULL,
        fingerprint bytea NOT NULL UNIQUE CHECK (length(fingerprint) = 32),
        scopes text[] NOT NULL CHECK (cardinality(scopes) > 0),
        allowed_cidrs text[] NOT NULL DEFAULT '{}',
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX api_keys_workspace ON api_keys (workspace_id, created_at DESC);
      CREATE TABLE audit_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT clock_timestamp(),
        door text NOT NULL CHECK (door IN ('rest', 'mcp', 'admin', 'activity')),
        action text NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('allowed', 'refused', 'failed')),
        reason text,
        status integer,
        workspace_id uuid,
        key_id uuid,
        key_prefix text,
        actor_user_id uuid,
        request_id text,
        client_ip text,
        details jsonb
      );
      CREATE INDEX audit_log_workspace_at ON audit_log (workspace_id, id DESC);
      CREATE INDEX audit_log_request ON audit_log (request_id);
      -- One row per key per minute; shared by every API process, so the limit holds across instances.
      CREATE UNLOGGED TABLE rate_limit_windows (
        key_id uuid NOT NULL,
        window_start timestamptz NOT NULL,
        hits integer NOT NULL,
        PRIMARY KEY (key_id, window_start)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE rate_limit_windows; DROP TABLE audit_log; DROP TABLE api_keys;
      DROP TABLE memberships; DROP TABLE users; DROP TABLE workspaces;
    `);
  }
}
