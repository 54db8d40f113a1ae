import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hosted assistants connect over OAuth 2.1. The authorization server keeps what it issues in
 * `oauth_records` (codes, grants, refresh and access tokens, interactions, registered clients: one row
 * per record, by model and id, its grant and expiry as columns so a grant's tokens end together and
 * expired rows can be swept). Its signing keys are sealed with SECRETS_KEY in `oauth_signing_keys`,
 * newest first; a retired key stays published until `retired_at` plus a day.
 *
 * A member's consent is an assistant connection: a credential row in `api_keys` (`kind = 'assistant'`,
 * whose fingerprint is random and never issued, so it cannot be presented as a key) carrying the
 * granted scopes, its member and workspace, and `assistant_connections` naming the OAuth grant and
 * the client. Everything that reads a key's authority (each call's check, approvals' requester
 * standing, revocation withdrawing parked requests) reads a connection the same way. Every audit row
 * of a call made through one names its client in `client_id`.
 */
export class AssistantOauth1763803100000 implements MigrationInterface {
  name = 'AssistantOauth1763803100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE api_keys
        ADD COLUMN kind text NOT NULL DEFAULT 'key',
        ADD CONSTRAINT api_keys_kind_check CHECK (kind = ANY (ARRAY['key'::text, 'assistant'::text]));
      ALTER TABLE audit_log ADD COLUMN client_id text;
      ALTER TABLE audit_log DROP CONSTRAINT audit_log_door_check;
      ALTER TABLE audit_log ADD CONSTRAINT audit_log_door_check
        CHECK (door = ANY (ARRAY['rest'::text, 'mcp'::text, 'admin'::text, 'activity'::text, 'public'::text, 'agent'::text, 'console'::text, 'oauth'::text]));

      CREATE TABLE oauth_records (
        model text NOT NULL,
        id text NOT NULL,
        payload jsonb NOT NULL,
        grant_id text,
        uid text,
        expires_at timestamptz,
        consumed_at timestamptz,
        CONSTRAINT oauth_records_pkey PRIMARY KEY (model, id)
      );
      CREATE INDEX oauth_records_grant ON oauth_records (grant_id);
      CREATE INDEX oauth_records_uid ON oauth_records (uid);
      CREATE INDEX oauth_records_expires ON oauth_records (expires_at);

      CREATE TABLE oauth_signing_keys (
        kid text PRIMARY KEY,
        sealed bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        retired_at timestamptz
      );

      CREATE TABLE assistant_connections (
        key_id uuid PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        grant_id text NOT NULL,
        client_id text NOT NULL,
        client_name text NOT NULL,
        client_host text NOT NULL,
        client_kind text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT assistant_connections_grant_id_key UNIQUE (grant_id),
        CONSTRAINT assistant_connections_client_kind_check CHECK (client_kind = ANY (ARRAY['document'::text, 'registered'::text]))
      );
      CREATE INDEX assistant_connections_workspace ON assistant_connections (workspace_id, created_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE assistant_connections;
      DROP TABLE oauth_signing_keys;
      DROP TABLE oauth_records;
      DELETE FROM audit_log WHERE door = 'oauth';
      ALTER TABLE audit_log DROP CONSTRAINT audit_log_door_check;
      ALTER TABLE audit_log ADD CONSTRAINT audit_log_door_check
        CHECK (door = ANY (ARRAY['rest'::text, 'mcp'::text, 'admin'::text, 'activity'::text, 'public'::text, 'agent'::text, 'console'::text]));
      ALTER TABLE audit_log DROP COLUMN client_id;
      DELETE FROM api_keys WHERE kind = 'assistant';
      ALTER TABLE api_keys DROP COLUMN kind;
    `);
  }
}
