import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * From the security review:
 * - IP allowlists become `cidr[]`, so the key lookup decides the address in SQL (and counts a request
 *   against the key's rate limit only once the allowlist admits it). Entries are normalised to their
 *   network; an entry that does not parse is dropped, which never widens a list, since such entries
 *   already matched nobody. A key left with none of its entries would admit everyone: it is revoked
 *   instead, and the revocation audited.
 * - Indexes for the retention purge (audit rows, events and idempotency records by age).
 */
export class Hardening1763800500000 implements MigrationInterface {
  name = 'Hardening1763800500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION pg_temp.cidr_or_null(entry text) RETURNS cidr LANGUAGE plpgsql AS $$
      BEGIN
        IF entry !~ '^[0-9A-Fa-f:.]+(/[0-9]{1,3})?$' THEN RETURN NULL; END IF;
        RETURN network(entry::inet)::cidr;
      EXCEPTION WHEN others THEN
        RETURN NULL;
      END $$;
      CREATE OR REPLACE FUNCTION pg_temp.cidrs_of(entries text[]) RETURNS cidr[] LANGUAGE sql AS $$
        SELECT coalesce(array_agg(DISTINCT c ORDER BY c), '{}')
          FROM unnest(entries) e, pg_temp.cidr_or_null(e) c WHERE c IS NOT NULL
      $$;

      WITH unusable AS (
        UPDATE api_keys k SET revoked_at = coalesce(k.revoked_at, clock_timestamp()), allowed_cidrs = '{}'
         WHERE cardinality(k.allowed_cidrs) > 0
           AND cardinality(pg_temp.cidrs_of(k.allowed_cidrs)) = 0
        RETURNING k.id, k.workspace_id, k.prefix
      )
      INSERT INTO audit_log (door, action, outcome, reason, workspace_id, key_id, key_prefix, details)
      SELECT 'admin', 'key.revoke', 'allowed', 'migration: every IP allowlist entry was malformed', workspace_id,
             id, prefix, '{}'::jsonb
        FROM unusable;

      ALTER TABLE api_keys ALTER COLUMN allowed_cidrs DROP DEFAULT;
      ALTER TABLE api_keys ALTER COLUMN allowed_cidrs TYPE cidr[] USING pg_temp.cidrs_of(allowed_cidrs);
      ALTER TABLE api_keys ALTER COLUMN allowed_cidrs SET DEFAULT '{}';

      CREATE INDEX audit_log_at ON audit_log (at);
      CREATE INDEX events_created ON events (created_at);
      CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX idempotency_keys_created; DROP INDEX events_created; DROP INDEX audit_log_at;
      ALTER TABLE api_keys ALTER COLUMN allowed_cidrs DROP DEFAULT;
      ALTER TABLE api_keys ALTER COLUMN allowed_cidrs TYPE text[] USING allowed_cidrs::text[];
      ALTER TABLE api_keys ALTER COLUMN allowed_cidrs SET DEFAULT '{}';
    `);
  }
}
