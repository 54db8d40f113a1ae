import type { EntityManager } from 'typeorm';
import type * as yup from 'yup';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { EMAIL_PATTERN } from '../../kernel/validate';
import { LEADS_READ } from '../requirements';
import { LEAD_COLUMNS, leadView, type LeadRow } from '../rows';
import { countryOfTimezone, normaliseEmail, normalisePhone } from '../normalise';
import { LEAD_LIST } from '../outputs';
import { searchParamsSchema } from '../schemas';

/** How many of the newest leads a query search walks before it asks the trigram index. */
const RECENT_WINDOW = 5000;

const likePattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Searches a workspace's live leads, newest first: `query` matches name, email or phone,
 * case-insensitively and partially (trigram index). `count` is the number of leads returned.
 */
export const searchLeads = defineOperation({
  name: 'lead.search',
  title: 'Search leads',
  description:
    'Finds live (not archived) leads of the workspace, newest first, by name, email or phone, status, or whether they need attention.',
  returns: '{ data: [lead], count }.',
  requirement: LEADS_READ,
  reach: 'workspace',
  ...READ_ONLY,
  input: searchParamsSchema,
  output: LEAD_LIST,
  doors: { rest: { method: 'get', path: '/leads', operationId: 'searchLeads' }, mcp: true },
  summary: (p) => `Search leads${p.query ? ` for "${p.query}"` : ''}`,
  run: (ctx, p) => search(ctx.m, ctx.workspaceId!, p),
});

async function search(db: EntityManager, workspaceId: string, p: yup.InferType<typeof searchParamsSchema>) {
  const where = ['workspace_id = $1', 'archived_at IS NULL'];
  const args: unknown[] = [workspaceId];
  const query = p.query?.trim();
  if (query && EMAIL_PATTERN.test(query)) {
    // A whole address is looked up on the unique email index: every address shares its domain's
    // trigrams, so a trigram search for one reads the postings of most of the workspace.
    where.push(`email = $${args.push(normaliseEmail(query))}`);
  } else if (query) {
    const patterns = [likePattern(query)];
    // A phone typed as the lead gave it (07700 900123) also finds the stored form (+447700900123).
    if (/^[+()\d\s.-]{3,}$/.test(query)) {
      const [{ timezone }] = await db.query<[{ timezone: string }]>(
        'SELECT timezone FROM workspaces WHERE id = $1',
        [workspaceId],
      );
      const digits = query.replace(/\D/g, '');
      // A national number's trunk 0 is not in the stored E.164 form: "06 11 22" also looks for "61122".
      const national = /^0[1-9]\d{2,}$/.test(digits) ? digits.slice(1) : undefined;
      for (const alt of [normalisePhone(query, countryOfTimezone(timezone)), digits, national]) {
        if (alt && !patterns.includes(likePattern(alt))) patterns.push(likePattern(alt));
      }
    }
    where.push(`(${patterns.map((pat) => `search_text LIKE $${args.push(pat)}`).join(' OR ')})`);
  }
  if (p.status) where.push(`status = $${args.push(p.status)}`);
  if (p.needs_attention !== undefined) where.push(`needs_attention = $${args.push(p.needs_attention)}`);
  const limit = p.limit;
  const limitArg = `$${args.push(limit)}`;
  const select = (from: string) =>
    db.query<LeadRow[]>(
      `SELECT ${LEAD_COLUMNS} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${limitArg}`,
      args,
    );
  let rows: LeadRow[] | undefined;
  if (query && !EMAIL_PATTERN.test(query)) {
    // A common fragment (a surname) matches thousands of leads: walking the newest leads finds a page at
    // once, where the trigram index would gather every match and sort them. A rare one is not in the
    // newest leads, and the index finds it. So walk a bounded window first; it answers only if full.
    const window = `(SELECT * FROM leads WHERE workspace_id = $1 AND archived_at IS NULL
                     ORDER BY created_at DESC, id DESC LIMIT ${RECENT_WINDOW}) recent`;
    const recent = await select(window);
    if (recent.length === limit) rows = recent;
  }
  rows ??= await select('leads');
  return { data: rows.map(leadView), count: rows.length };
}
