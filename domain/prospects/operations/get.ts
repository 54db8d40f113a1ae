import * as yup from 'yup';
import { notFound } from '../../kernel/errors';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { withList } from '../lookup';
import { prospectsIn } from '../repository/prospects';
import { PROSPECTS_READ } from '../requirements';
import { prospectIdField } from '../schemas';
import { PROSPECT } from '../views';

export const getProspect = defineOperation({
  name: 'prospect.get',
  title: 'Read a prospect',
  description:
    'One prospect: its details, score with reasons and scoring_version, source (list and file line) and status.',
  returns: 'The prospect.',
  requirement: PROSPECTS_READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({ prospectId: prospectIdField }),
  output: PROSPECT,
  doors: { mcp: true, admin: { command: 'prospect get', flags: (f) => ({ prospectId: f.id }) } },
  summary: (i) => `Read prospect ${i.prospectId}`,
  run: async (ctx, { prospectId }) => {
    const p = await prospectsIn(ctx.data).find(prospectId);
    if (!p) throw notFound('prospect');
    return withList(ctx, p);
  },
});
