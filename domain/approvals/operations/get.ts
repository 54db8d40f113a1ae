import * as yup from 'yup';
import { notFound } from '../../kernel/errors';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { approvalsIn } from '../repository/approvals';
import { READ, ownKey } from '../requirements';
import { APPROVAL, approvalId } from '../schemas';
import { approvalView } from '../views';

export const getApproval = defineOperation({
  name: 'approval.get',
  title: 'Check an approval request',
  description:
    'What became of a request this key parked for approval: PENDING (waiting for a person), EXECUTED (approved and done, with its outcome), FAILED (approved but refused when run, with the reason), REJECTED (with the reason), EXPIRED (nobody decided within 7 days) or CANCELLED (withdrawn with approval.cancel).',
  returns: 'The approval request.',
  requirement: READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({ approvalId }),
  output: APPROVAL,
  doors: { mcp: true },
  summary: (i) => `Check approval request ${i.approvalId}`,
  run: async (ctx, i) => {
    const row = await approvalsIn(ctx.data).find(i.approvalId, { key: ownKey(ctx) });
    if (!row) throw notFound('approval request');
    return approvalView(row);
  },
});
