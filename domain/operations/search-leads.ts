import type { DataSource } from 'typeorm';
import * as yup from 'yup';
import { authorize, type Actor } from '../actor';
import { DomainError } from '../errors';
import { LEAD_COLUMNS, leadView, type LeadRow } from '../leads/lead-row';
import { countryOfTimezone, normaliseEmail, normalisePhone } from '../leads/normalise';
import { LEADS_READ } from '../leads/requirements';
import { LEAD_STATUSES, type LeadStatus } from '../leads/status-rules';
import { limitParam, maxChars, validate } from '../validate';

export const searchParamsSchema = yup
  .object({
    query: yup.string().test(maxChars(200, 'query must be at most 200 characters')),
    status: yup
      .mixed<LeadStatus>()
      .oneOf([...LEAD_STATUSES], `status must be one of ${LEAD_STATUSES.join(', ')}`),
    needs_attention: yup
      .mixed<'true' | 'false'>()
      .oneOf(['true', 'false'], 'needs_attention must be true or false'),
    limit: limitParam(50),
  })
  .strict(true)
  .noUnknown(true, (p: { unknown: string }) => `${p.unknown} is not a search parameter`);

/** How many of the newest leads a query search walks before it asks the trigram index. */
const RECENT_WINDOW = 5000;

const FULL_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const likePattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Searches a workspace's live leads, newest first: `query` matches name, email or phone,
 * case-insensitively and partially (trigram index). `count` is the number of leads returned.
 */
export async function searchLeads(db: DataSource, actor: Actor, workspaceId: string, params: unknown) {
  authorize(actor, LEADS_READ);
  const p = validate(searchParamsSchema, params, { strict: true });
  const where = ['workspace_id = $1', 'archived_at IS NULL'];
  const args: unknown[] = [workspaceId];
  const query = p.query?.trim();
  if (query && FULL_EMAIL.test(query)) {
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
  if (p.needs_attention) where.push(`needs_attention = $${args.push(p.needs_attention === 'true')}`);
  const limit = p.limit === undefined ? 25 : Number(p.limit);
  const limitArg = `$${args.push(limit)}`;
  const select = (from: string) =>
    db.query<LeadRow[]>(
      `SELECT ${LEAD_COLUMNS} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${limitArg}`,
      args,
    );
  let rows: LeadRow[] | undefined;
  if (query && !FULL_EMAIL.test(query)) {
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

/** Query strings arrive as `string | string[]`; a repeated parameter is refused, naming it. */
export function singleValued(query: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) {
    if (k.includes('\u0000') || (typeof v === 'string' && v.includes('\u0000'))) {
      throw new DomainError('invalid_request', 'Query parameters must not contain NUL characters.', {
        field: k.replaceAll('\u0000', ''),
      });
    }
    if (Array.isArray(v))
      throw new DomainError('invalid_request', `${k} may be given only once`, { field: k });
    if (v !== undefined) out[k] = v;
  }
  return out;
}
