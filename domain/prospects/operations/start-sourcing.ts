import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { PROSPECTS_WRITE } from '../requirements';
import { listName } from '../schemas';
import { startSourcing } from '../sourcing';
import { SOURCING_RUN } from '../views';

export const startProspectSourcing = defineOperation({
  name: 'prospect.start_sourcing',
  title: 'Score a prospect list',
  description:
    'Starts a sourcing run over a prospect list: each unscored candidate is scored with the versioned rules (fit by industry, area, role and completeness; every score has reasons and its scoring_version); candidates already leads or suppressed are dropped. Runs in the background; read the results with prospect.list.',
  returns: 'The sourcing run (status RUNNING; its workflow is sourcing:<id>).',
  requirement: PROSPECTS_WRITE,
  reach: 'workspace',
  ...WRITE,
  input: yup.object({
    list: listName.required('list is required'),
    limit: describe(
      yup
        .number()
        .typeError('limit must be a number')
        .integer('limit must be a whole number')
        .min(1, 'limit must be at least 1')
        .max(10_000, 'limit must be at most 10000'),
      'At most this many candidates in this run, oldest first (default: all unscored).',
    ),
  }),
  output: SOURCING_RUN,
  doors: {
    mcp: true,
    admin: { command: 'prospect start-sourcing', flags: (f) => ({ list: f.list, limit: f.limit }) },
  },
  summary: (i) => `Score the prospect list "${i.list}"`,
  run: (ctx, i) => startSourcing(ctx, i),
});
