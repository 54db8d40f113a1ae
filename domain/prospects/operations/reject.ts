import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { heldProspect, withList } from '../lookup';
import { prospectsIn } from '../repository/prospects';
import { PROSPECTS_WRITE } from '../requirements';
import { prospectIdField } from '../schemas';
import { PROSPECT } from '../views';

export const rejectProspect = defineOperation({
  name: 'prospect.reject',
  title: 'Reject a prospect',
  description: 'Rejects a prospect, with the reason; it never becomes a lead from this list.',
  returns: 'The prospect, REJECTED.',
  requirement: PROSPECTS_WRITE,
  reach: 'record',
  ...WRITE,
  idempotent: true,
  input: yup.object({
    prospectId: prospectIdField,
    reason: describe(
      yup
        .string()
        .trim()
        .required('reason is required')
        .min(1, 'reason must not be empty')
        .max(500, 'reason must be at most 500 characters'),
      'Why (for the record).',
    ),
  }),
  output: PROSPECT,
  doors: {
    mcp: true,
    admin: { command: 'prospect reject', flags: (f) => ({ prospectId: f.id, reason: f.reason }) },
  },
  summary: (i) => `Reject prospect ${i.prospectId}`,
  run: async (ctx, { prospectId, reason }) => {
    const p = await heldProspect(ctx, prospectId);
    if (p.status === 'REJECTED') return withList(ctx, p);
    if (p.status === 'APPROVED')
      throw new DomainError('conflict', 'The prospect was approved and is a lead: it cannot be rejected.');
    const changed = await prospectsIn(ctx.data.in(p.workspace_id)).change(p.id, {
      status: 'REJECTED',
      decision_reason: reason,
      decided_at: new Date(),
    });
    ctx.audit(p.workspace_id, { prospect_id: p.id });
    return withList(ctx, changed);
  },
});
