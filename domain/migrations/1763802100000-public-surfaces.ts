import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Rewrites audit rows that recorded a token path: the action and the reason keep the family only. */
export const SCRUB_TOKEN_PATHS = `
  UPDATE audit_log SET action = regexp_replace(action, '^(\\S+) /(quotes|u)/.*$', '\\1 /\\2/*')
   WHERE action ~ '^\\S+ /(quotes|u)/';
  UPDATE audit_log SET reason = regexp_replace(reason, '/(quotes|u)/\\S*[^\\s.]', '/\\1/*', 'g')
   WHERE reason ~ '/(quotes|u)/';
`;

/**
 * Public surfaces that keep their secrets. A request to an unmatched path under a quote page or an
 * unsubscribe link used to be recorded by its path, token included (`GET /quotes/<token>/accept`),
 * and whoever reads the audit log could then open the page; such rows now say the family only
 * (`/quotes/*`, `/u/*`), in the action and in the reason. The public routes' rate limits are counted
 * here, one row per bucket (a client address, a workspace) per minute, shared by every API process.
 */
export class PublicSurfaces1763802100000 implements MigrationInterface {
  name = 'PublicSurfaces1763802100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(SCRUB_TOKEN_PATHS);
    await q.query(`
      CREATE UNLOGGED TABLE public_rate_windows (
        bucket text NOT NULL,
        window_start timestamptz NOT NULL,
        hits integer NOT NULL,
        PRIMARY KEY (bucket, window_start)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE public_rate_windows`);
  }
}
