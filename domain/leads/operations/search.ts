import type { Data } from '../../kernel/data';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { EMAIL_PATTERN } from '../../kernel/validate';
import { LEADS_READ } from '../requirements';
import { workspaceTimezone } from '../contact-input';
import { countryOfTimezone, normaliseEmail, normalisePhone } from '../normalise';
import { LEAD_LIST, leadView } from '../views';
import { leadReadsIn, type LeadFilter } from '../repository/reads';
import { searchParamsSchema } from '../schemas';
import { AREA } from '../area';

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
  doors: { rest: { method: 'get', path: '/leads', operationId: 'searchLeads', area: AREA }, mcp: true },
  summary: (p) => `Search leads${p.query ? ` for "${p.query}"` : ''}`,
  run: async (ctx, p) => {
    const query = p.query?.trim();
    const filter: LeadFilter = { status: p.status, needsAttention: p.needs_attention, limit: p.limit };
    // A whole address is looked up on the unique email index: every address shares its domain's
    // trigrams, so a trigram search for one reads the postings of most of the workspace.
    if (query && EMAIL_PATTERN.test(query)) filter.email = normaliseEmail(query);
    else if (query) filter.fragments = await fragmentsOf(ctx.data, ctx.workspaceId!, query);
    const rows = await leadReadsIn(ctx.data).search(filter);
    return { data: rows.map(leadView), count: rows.length };
  },
});

/** What a query matches: itself and, when it looks like a phone number, the forms it may be stored in. */
async function fragmentsOf(data: Data, workspaceId: string, query: string): Promise<string[]> {
  if (!/^[+()\d\s.-]{3,}$/.test(query)) return [query];
  // A phone typed as the lead gave it (07700 900123) also finds the stored form (+447700900123).
  const timezone = await workspaceTimezone(data, workspaceId);
  const digits = query.replace(/\D/g, '');
  // A national number's trunk 0 is not in the stored E.164 form: "06 11 22" also looks for "61122".
  const national = /^0[1-9]\d{2,}$/.test(digits) ? digits.slice(1) : undefined;
  const alternatives = [normalisePhone(query, countryOfTimezone(timezone)), digits, national];
  return [query, ...alternatives.filter((alt): alt is string => !!alt)];
}
