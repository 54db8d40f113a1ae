import type { DataSource } from 'typeorm';

/**
 * The trigrams of the joined search text that a large share of leads have (`eco` and `com` of every
 * `example.com` joined as `examplecom`). The trigram index keeps, for each trigram, the list of leads
 * that have it; a search that asks for a common one reads a list as long as the table (at 1,000,000
 * leads, 300 pages and 12 ms for the `eco` of "evie.co", against 40 pages and 3 ms without it) and is
 * narrowed no further by it. So the search leaves them out of what it asks the index (reads.ts) and
 * still matches every row on the text as typed.
 *
 * Which trigrams are common is measured on a sample of the leads, in the background, at most once an
 * hour per process: a search never waits for it. Until the first measure, nothing is taken for common,
 * which is the search as it was. A trigram says nothing about one lead or workspace, and the set is only
 * used to choose index conditions.
 */

/**
 * The search text with the separators pg_trgm splits words at taken out, as the search index holds it
 * (migration 1763801600000): "roman collins" is searched as "romancollins", whose trigrams are rare.
 * Whatever contains a fragment also contains it joined, so the index narrows and never loses a match.
 */
export const JOINED_SEARCH_TEXT = `translate(search_text, ' .@+-_''', '')`;

/** Leads read for a measure; the share of each trigram among them is the estimate. */
const SAMPLE_ROWS = 2_000;
/** Fewer leads than this, and nothing is common: the index is cheap at that size anyway. */
const MIN_SAMPLE_ROWS = 500;
/** A trigram in at least this share of the sampled leads is common. */
const COMMON_SHARE = 0.1;
const REFRESH_MS = 60 * 60_000;

type Known = { at: number; trigrams: ReadonlySet<string>; measuring?: Promise<void> };
const NONE: ReadonlySet<string> = new Set();
const byDatabase = new WeakMap<DataSource, Known>();

/**
 * Measures now. SQL: a page sample of the live leads (TABLESAMPLE, sized from the planner's row
 * estimate, so the whole table is never read) and pg_trgm's own split of each lead's joined text.
 */
export async function measureCommonTrigrams(db: DataSource): Promise<Set<string>> {
  const [size] = await db.query<{ rows: number }[]>(
    `SELECT reltuples::float8 AS rows FROM pg_class WHERE oid = 'leads'::regclass`,
  );
  const rows = Number(size?.rows ?? -1);
  // Pages hold several leads, and archived ones are skipped: three times the rows wanted, at most all.
  const percent = rows <= 0 ? 100 : Math.min(100, (300 * SAMPLE_ROWS) / rows);
  const found = await db.query<{ trigram: string }[]>(
    `WITH sample AS (
       SELECT ${JOINED_SEARCH_TEXT} AS joined
         FROM leads TABLESAMPLE SYSTEM ($1) WHERE archived_at IS NULL LIMIT ${SAMPLE_ROWS}),
     size AS (SELECT count(*) AS n FROM sample)
     SELECT g AS trigram FROM sample, unnest(show_trgm(joined)) AS g, size
      WHERE size.n >= $2 AND g !~ ' '
      GROUP BY g, size.n HAVING count(*) >= $3::float8 * size.n`,
    [percent, MIN_SAMPLE_ROWS, COMMON_SHARE],
  );
  return new Set(found.map((r) => r.trigram));
}

/** The common trigrams as last measured (none before the first measure); starts a measure when stale. */
export function commonTrigrams(db: DataSource): ReadonlySet<string> {
  let known = byDatabase.get(db);
  if (!known) byDatabase.set(db, (known = { at: 0, trigrams: NONE }));
  if (!known.measuring && Date.now() - known.at > REFRESH_MS) {
    const k = known;
    k.at = Date.now();
    k.measuring = measureCommonTrigrams(db)
      .then((trigrams) => {
        k.trigrams = trigrams;
      })
      // A failed measure keeps the last set, and tries again after the interval.
      .catch(() => undefined)
      .finally(() => {
        k.measuring = undefined;
      });
  }
  return known.trigrams;
}

/** For tests: sets what is common for this database, as a measure would. */
export function setCommonTrigrams(db: DataSource, trigrams: ReadonlySet<string>): void {
  byDatabase.set(db, { at: Date.now(), trigrams });
}

/**
 * What to ask the index for, given a joined fragment: its stretches whose trigrams are all rare
 * ("eviec" of "evieco" when `eco` is common), each as a LIKE of its own. The fragment itself when
 * none of its trigrams is common, when all are (then nothing narrows better), or when it holds
 * anything but lower-case letters and digits (pg_trgm splits words there, so the windows below would
 * not be its trigrams).
 */
export function rareStretches(joined: string, common: ReadonlySet<string>): string[] {
  if (common.size === 0 || !/^[a-z0-9]+$/.test(joined)) return [joined];
  const stretches: string[] = [];
  let from = -1; // where the stretch being gathered begins
  for (let i = 0; i + 3 <= joined.length; i++) {
    const rare = !common.has(joined.slice(i, i + 3));
    if (rare && from < 0) from = i;
    if (!rare && from >= 0) {
      stretches.push(joined.slice(from, i + 2));
      from = -1;
    }
  }
  if (from >= 0) stretches.push(joined.slice(from));
  const kept = stretches.reduce((n, s) => n + s.length - 2, 0);
  return stretches.length === 0 || kept === joined.length - 2 ? [joined] : stretches;
}
