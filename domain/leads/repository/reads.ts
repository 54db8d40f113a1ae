import type { Authenticity } from '../../kernel/channels';
import type { Data } from '../../kernel/data';
import { bind } from '../../kernel/statements';
import { LeadEntity, type Lead } from '../entities';
import type { LeadStatus } from '../status-rules';
import { commonTrigrams, JOINED_SEARCH_TEXT, rareStretches } from './common-trigrams';

/** A lead's columns as a read answers them: all but the generated search text, as TypeORM selects. */
export const LEAD_COLUMNS = Object.entries(LeadEntity.options.columns)
  .filter(([, column]) => column?.select !== false)
  .map(([name]) => name);

/**
 * A message of the lead's recent activity, read from the conversations area's table in the lead's one
 * query (GET /leads/{id} answers in one round trip): read here, written only by conversations.
 */
export type RecentMessage = {
  id: string;
  direction: string;
  channel: string;
  status: string;
  body: string;
  at: Date;
  authenticity: Authenticity | null;
};

export type LeadFilter = {
  status?: LeadStatus;
  needsAttention?: boolean;
  limit: number;
  /** A whole email address (normalised), looked up on the unique email index. */
  email?: string;
  /** Parts of a name, email or phone, any of which matches, case-insensitively. */
  fragments?: string[];
};

/** How many of the newest leads a fragment search walks before it asks the trigram index. */
const RECENT_WINDOW = 5000;

const likePattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The characters that translate() takes out, as a regular-expression class. */
const SEPARATORS = " .@+\\-_'";
const SEPARATOR = new RegExp(`[${SEPARATORS}]`, 'g');
/** The first separator between two parts: "roman collins", "roman.co", "ana@exa". */
const SEPARATOR_BETWEEN_PARTS = new RegExp(`[^${SEPARATORS}][${SEPARATORS}]+(?=[^${SEPARATORS}])`);
const joined = (text: string) => text.replace(SEPARATOR, '');
const firstSeparator = (text: string) => SEPARATOR_BETWEEN_PARTS.exec(text);
const twoParts = (text: string) => firstSeparator(text) !== null;

/**
 * What the index is asked for. Of a fragment in two parts, only the four characters either side of
 * the first separator ("omancoll" of "roman collins"): the trigrams that span it are the rare ones, and
 * each trigram more is one more posting list read (a long full name read twice the index pages for
 * no fewer rows). The whole fragment is still matched on every row the index finds.
 */
function indexed(text: string): string {
  const separator = firstSeparator(text);
  if (!separator) return joined(text);
  const at = separator.index + 1;
  return joined(text.slice(0, at)).slice(-4) + joined(text.slice(at + separator[0].length - 1)).slice(0, 4);
}

/** How many matches a two-part fragment's first look gathers before it is taken for a common one. */
const GATHER_LIMIT = 2500;

/** The hot reads of leads, in SQL: each is one statement whose plan the benchmarks watch. */
export const leadReadsIn = (data: Data) => ({
  /**
   * A lead (archived too) with its newest messages, bodies cut short, or null. SQL: GET /leads/{id}
   * answers in one round trip, the messages gathered by a subquery on the lead's newest-first index.
   */
  withRecentMessages: async (
    id: string,
    messages: number,
    bodyChars: number,
  ): Promise<{ lead: Lead; messages: RecentMessage[] } | null> => {
    const [row] = await data.prepared<
      (Lead & { activity: (Omit<RecentMessage, 'at'> & { at: string })[] })[]
    >(
      'lead-with-recent-messages',
      `SELECT ${LEAD_COLUMNS.map((c) => `l.${c}`).join(', ')},
              coalesce((SELECT json_agg(m ORDER BY m.at DESC, m.id DESC) FROM (
                SELECT id, direction, channel, status, left(body, $3) AS body, at, authenticity FROM messages
                 WHERE lead_id = l.id ORDER BY at DESC, id DESC LIMIT $4) m), '[]') AS activity
         FROM leads l WHERE l.id = $1 AND ($2::uuid IS NULL OR l.workspace_id = $2)`,
      [id, data.workspaceId ?? null, bodyChars, messages],
    );
    if (!row) return null;
    const { activity, ...lead } = row;
    return { lead, messages: activity.map((m) => ({ ...m, at: new Date(m.at) })) };
  },

  /**
   * The workspace's live leads matching the filter, newest first. SQL: fragments are matched with
   * LIKE on the trigram-indexed search text, first over a bounded window of the newest leads (see
   * below), which TypeORM's find cannot say; bench/lib/search-plan.ts explains these very statements.
   */
  search: async (f: LeadFilter): Promise<Lead[]> => {
    const where = ['workspace_id = $1', 'archived_at IS NULL'];
    const args: unknown[] = [data.workspaceId];
    if (f.email !== undefined) where.push(`email = ${bind(args, f.email)}`);
    if (f.fragments) {
      // The index is asked only for what narrows: a trigram most leads have is left out (common-trigrams.ts).
      const common = commonTrigrams(data.manager.connection);
      const matches = [...new Set(f.fragments.map((text) => text.toLowerCase()))].map((text) => {
        const asked = rareStretches(indexed(text), common).map(
          (stretch) => `${JOINED_SEARCH_TEXT} LIKE ${bind(args, likePattern(stretch))}`,
        );
        return `(${asked.join(' AND ')} AND search_text LIKE ${bind(args, likePattern(text))})`;
      });
      where.push(`(${matches.join(' OR ')})`);
    }
    if (f.status) where.push(`status = ${bind(args, f.status)}`);
    if (f.needsAttention !== undefined) where.push(`needs_attention = ${bind(args, f.needsAttention)}`);
    const limitArg = bind(args, f.limit);
    const select = (from: string) =>
      data.sql<Lead[]>(
        `SELECT ${LEAD_COLUMNS.join(', ')} FROM ${from} WHERE ${where.join(' AND ')}
          ORDER BY created_at DESC, id DESC LIMIT ${limitArg}`,
        args,
      );
    if (f.fragments) {
      // A fragment of two parts (a full name, part of an address) is nearly always rare: ask the index
      // first, for at most GATHER_LIMIT matches, and sort those; more than that and it is common after all.
      if (f.fragments.every(twoParts)) {
        const found = await data.sql<(Lead & { matched: string })[]>(
          `SELECT ${LEAD_COLUMNS.join(', ')}, count(*) OVER () AS matched
             FROM (SELECT * FROM leads WHERE ${where.join(' AND ')} LIMIT ${GATHER_LIMIT + 1}) matches
            ORDER BY created_at DESC, id DESC LIMIT ${limitArg}`,
          args,
        );
        if (found.length === 0 || Number(found[0]!.matched) <= GATHER_LIMIT)
          return found.map(({ matched: _, ...lead }) => lead);
      }
      // A common fragment (a surname) matches thousands of leads: walking the newest leads finds a page at
      // once, where the trigram index would gather every match and sort them. A rare one is not in the
      // newest leads, and the index finds it. So walk a bounded window first; it answers only if full.
      const recent = await select(`(SELECT * FROM leads WHERE workspace_id = $1 AND archived_at IS NULL
                                     ORDER BY created_at DESC, id DESC LIMIT ${RECENT_WINDOW}) recent`);
      if (recent.length === f.limit) return recent;
      // Rare, then: gather its matches on the trigram index and sort those. Left to itself, the planner
      // (which guesses a LIKE keeps 1% of rows) walks the newest leads for a page, through most of the
      // table for a rare fragment (120 ms at 1M leads); OFFSET 0 keeps the matches a query of their own.
      return select(`(SELECT * FROM leads WHERE ${where.join(' AND ')} OFFSET 0) matches`);
    }
    return select('leads');
  },
});
