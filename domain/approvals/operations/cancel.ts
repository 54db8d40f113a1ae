import * as yup from 'yup';
import { notFound } from '../../kernel/errors';
import { defineOperation } from '../../kernel/operation';
import { withdrawApproval } from '../lifecycle';
import { approvalsIn } from '../repository/approvals';
import { READ, ownKey } from '../requirements';
import { APPROVAL, approvalId } from '../schemas';

/** The key that parked a request takes it back before anyone decides; a later decision is refused. */
export const cancelApproval = defineOperation({
  name: 'approval.cancel',
  title: 'Withdraw an approval request',
  description:
    'Withdraws a request this key parked that is still waiting for a person: it will never run, and an approval that comes later is refused. A request already decided cannot be withdrawn.',
  returns: 'The approval request, now CANCELLED.',
  requirement: READ,
  reach: 'record',
  changes: true,
  destructive: false,
  idempotent: false,
  gated: false,
  input: yup.object({ approvalId }),
  output: APPROVAL,
  doors: { mcp: true },
  summary: (i) => `Withdraw approval request ${i.approvalId}`,
  run: async (ctx, i) => {
    const row = await approvalsIn(ctx.data).find(i.approvalId, { lock: true, key: ownKey(ctx) });
    if (!row) throw notFound('approval request');
    ctx.audit(row.workspace_id, { approval_id: row.id, operation: row.operation });
    const withdrawn = await withdrawApproval(ctx.data, row);
    ctx.afterCommit(() => ctx.services.approvals.withdrawn(row.id));
    return withdrawn;
  },
});
