import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trigram index over the search text with its separators taken out ("roman collins" and
 * "roman.co" are indexed and searched as "romancollins" and "romanco"). pg_trgm splits text into words
 * at every separator, so a full name or an address prefix gave short words whose trigrams most leads
 * share (`co` begins every `.com`): at 1,000,000 leads PostgreSQL rechecked thousands of rows for one
 * of them (up to 200 ms). Joined, the trigrams that span the separator ("anc", "nco") are rare, and
 * the same searches read a few hundred rows (4-10 ms). The search keeps its meaning: the index only
 * narrows the rows, and each is still matched on the search text as typed (domain/leads/repository/reads.ts).
 *
 * New leads wait in the index's pending list until it is merged, and every search reads that whole
 * list: 256 kB (32 pages) instead of the default 4 MB bounds what a search pays for recent intakes, at
 * the cost of a merge every few hundred of them.
 */
export class SearchJoined1763801600000 implements MigrationInterface {
  name = 'SearchJoined1763801600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX IF EXISTS leads_search;
      CREATE INDEX leads_search ON leads USING gin ((translate(search_text, ' .@+-_''', '')) gin_trgm_ops)
        WITH (gin_pending_list_limit = 256) WHERE archived_at IS NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX IF EXISTS leads_search;
      CREATE INDEX leads_search ON leads USING gin (search_text gin_trgm_ops) WHERE archived_at IS NULL;
    `);
  }
}
