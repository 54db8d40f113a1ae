import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { pageSize } from '../../kernel/validate';
import { PROSPECT_STATUSES } from '../entities';
import { prospectsIn } from '../repository/prospects';
import { PROSPECTS_READ } from '../requirements';
import { listName } from '../schemas';
import { PROSPECTS, prospectView } from '../views';

export const listProspects = defineOperation({
  name: 'prospect.list',
  title: 'List prospects',
  description: 'Prospects, best score first, by list, status and minimum score.',
  returns: '{ data: [prospect], count }.',
  requirement: PROSPECTS_READ,
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({
    list: listName,
    status: describe(
      yup.string().oneOf([...PROSPECT_STATUSES], `status must be one of ${PROSPECT_STATUSES.join(', ')}`),
      'NEW (not scored yet), SCORED, DROPPED (already a lead, or suppressed), APPROVED or REJECTED.',
    ),
    min_score: describe(
      yup
        .number()
        .typeError('min_score must be a number')
        .integer('min_score must be a whole number')
        .min(0, 'min_score must be 0 to 100')
        .max(100, 'min_score must be 0 to 100'),
      'Only prospects scoring at least this (0 to 100).',
    ),
    limit: describe(pageSize(100), 'How many, 1 to 100 (default 25).'),
  }),
  output: PROSPECTS,
  doors: {
    mcp: true,
    admin: {
      command: 'prospect list',
      flags: (f) => ({ list: f.list, status: f.status, min_score: f['min-score'], limit: f.limit }),
    },
  },
  summary: () => 'List prospects',
  run: async (ctx, i) => {
    const repo = prospectsIn(ctx.data);
    const list = i.list === undefined ? undefined : await repo.mustFindList(i.list);
    const rows = await repo.search({
      listId: list?.id,
      status: i.status,
      minScore: i.min_score,
      limit: i.limit,
    });
    return { data: rows.map((p) => prospectView(p, list?.name)), count: rows.length };
  },
});
